package io.jfabric.provider.rxm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.provider.rxm.wire.CmData;
import io.jfabric.util.Sockaddr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The on-demand connection state machine, driven event by event against a recording stand-in for the
 * core's CM calls (the real core is exercised by the provider tests).
 */
@Timeout(10)
class ConnectionManagerTest {
    static final byte[] LOW = addr(127, 0, 0, 1, 5000);
    static final byte[] HIGH = addr(127, 0, 0, 2, 5000);

    static byte[] addr(int a, int b, int c, int d, int port) {
        return new byte[] {2, 0, (byte) (port >> 8), (byte) port, (byte) a, (byte) b, (byte) c, (byte) d,
                0, 0, 0, 0, 0, 0, 0, 0};
    }

    /** A core endpoint stand-in: just an identity with what was done to it. */
    static final class Ep {
        final String what;
        byte[] cmData;
        boolean closed;

        Ep(String what, byte[] cmData) {
            this.what = what;
            this.cmData = cmData;
        }
    }

    static final class Core implements CoreCm<Ep> {
        final List<Ep> eps = new ArrayList<>();
        final List<byte[]> rejects = new ArrayList<>();
        int failConnects;

        @Override
        public Ep connect(RxmConnection<Ep> conn, byte[] peerAddr, byte[] cmData) {
            if (failConnects > 0) {
                failConnects--;
                throw new FabricException(Errno.ENETUNREACH, "no route");
            }
            Ep e = new Ep("connect " + Sockaddr.straddr(peerAddr), cmData);
            eps.add(e);
            return e;
        }

        @Override
        public Ep accept(RxmConnection<Ep> conn, FabricInfo connreq, byte[] cmData) {
            Ep e = new Ep("accept", cmData);
            eps.add(e);
            return e;
        }

        @Override
        public void reject(FabricInfo connreq, byte[] cmData) {
            rejects.add(cmData);
        }

        @Override
        public void close(Ep ep) {
            ep.closed = true;
        }
    }

    static final class Events implements ConnectionListener<Ep> {
        final List<String> log = new ArrayList<>();

        @Override
        public void connected(RxmConnection<Ep> conn) {
            log.add("up " + conn.peer().index());
        }

        @Override
        public void closed(RxmConnection<Ep> conn, int errno) {
            log.add("down " + conn.peer().index() + " " + Errno.name(errno));
        }
    }

    final Core core = new Core();
    final Events events = new Events();

    ConnectionManager<Ep> manager(byte[] self, long pid) {
        return new ConnectionManager<>(new PeerTable(), core, events, self, pid, 16384, 4096);
    }

    static FabricInfo connreq(byte[] from, int ephemeralPort) {
        FabricInfo i = new FabricInfo();
        i.destAddr = Sockaddr.withPort(from, ephemeralPort);
        return i;
    }

    static byte[] connectData(byte[] from, long pid, int index) {
        return CmData.Connect.local(Sockaddr.port(from), 16384, 4096, CmData.connId(pid, index)).encode();
    }

    static byte[] acceptData(long pid, int index) {
        return new CmData.Accept(CmData.connId(pid, index), 4096, CmData.FLOW_CTRL_PEER_OFF).encode();
    }

    @Test
    void firstSendConnectsAndReturnsEagainUntilConnected() {
        ConnectionManager<Ep> m = manager(LOW, 100);
        RxmConnection<Ep> c = m.connection(m.peers().getOrAdd(HIGH));
        assertEquals(-Errno.EAGAIN, m.ensureConnected(c));
        assertEquals(ConnState.CONNECTING, c.state());
        assertEquals(1, core.eps.size());
        CmData.Connect sent = CmData.Connect.decode(core.eps.get(0).cmData);
        assertEquals(5000, sent.port(), "announces our listening port");
        assertEquals(100, CmData.peerPid(sent.clientConnId()));
        assertEquals(c.peer().index(), CmData.peerIndex(sent.clientConnId()));
        assertEquals(-Errno.EAGAIN, m.ensureConnected(c), "no second connect while one is running");
        assertEquals(1, core.eps.size());
        assertEquals(1, m.settingUp());

        m.onConnected(c.ep(), acceptData(200, 7));
        assertEquals(ConnState.CONNECTED, c.state());
        assertEquals(7, c.remoteIndex());
        assertEquals(200, c.remotePid());
        assertEquals(0, m.ensureConnected(c));
        assertEquals(0, m.settingUp());
        assertEquals(List.of("up 0"), events.log);
    }

    @Test
    void refusedConnectFailsOnceAndTheNextSendReconnects() {
        ConnectionManager<Ep> m = manager(LOW, 100);
        RxmConnection<Ep> c = m.connection(m.peers().getOrAdd(HIGH));
        m.ensureConnected(c);
        Ep first = c.ep();
        m.onRejected(first, null); // nobody listening: a plain refusal without rxm data
        assertTrue(first.closed);
        assertEquals(ConnState.IDLE, c.state());
        assertEquals(List.of("down 0 FI_ECONNREFUSED"), events.log);
        assertEquals(0, m.settingUp());

        // #6682: the failure must not poison the next attempt
        assertEquals(-Errno.EAGAIN, m.ensureConnected(c));
        assertNotSame(first, c.ep());
        m.onConnected(c.ep(), acceptData(200, 0));
        assertTrue(c.isConnected());
    }

    @Test
    void coreErrorOnConnectIsReturnedAndLaterConnectsStillWork() {
        ConnectionManager<Ep> m = manager(LOW, 100);
        RxmConnection<Ep> c = m.connection(m.peers().getOrAdd(HIGH));
        core.failConnects = 1;
        assertEquals(-Errno.ENETUNREACH, m.ensureConnected(c));
        assertEquals(ConnState.IDLE, c.state());
        assertEquals(-Errno.EAGAIN, m.ensureConnected(c));
    }

    @Test
    void simultaneousConnectLowerAddressWins() {
        // we are LOW; HIGH connects to us while we connect to it: peer > self, so we drop ours and accept
        ConnectionManager<Ep> low = manager(LOW, 100);
        RxmConnection<Ep> c = low.connection(low.peers().getOrAdd(HIGH));
        low.ensureConnected(c);
        Ep ours = c.ep();
        low.onConnReq(connreq(HIGH, 40000), connectData(HIGH, 200, 3));
        assertTrue(ours.closed, "our request is dropped");
        assertEquals(ConnState.ACCEPTING, c.state());
        assertEquals(3, c.remoteIndex());
        CmData.Accept acc = CmData.Accept.decode(c.ep().cmData);
        assertEquals(100, CmData.peerPid(acc.serverConnId()));
        // the peer's reject of our (dropped) request arrives late and is ignored
        low.onRejected(ours, CmData.Reject.of(CmData.REJECT_EALREADY).encode());
        low.onConnected(c.ep(), null);
        assertTrue(c.isConnected());
        assertEquals(List.of("up 0"), events.log);

        // we are HIGH; LOW's request arrives while we connect: peer < self, so we reject it with EALREADY
        Events ev2 = new Events();
        ConnectionManager<Ep> high = new ConnectionManager<>(new PeerTable(), core, ev2, HIGH, 200, 16384, 4096);
        RxmConnection<Ep> h = high.connection(high.peers().getOrAdd(LOW));
        high.ensureConnected(h);
        Ep mine = h.ep();
        high.onConnReq(connreq(LOW, 40001), connectData(LOW, 100, 0));
        assertEquals(1, core.rejects.size());
        assertEquals(CmData.REJECT_EALREADY, CmData.Reject.decode(core.rejects.get(0)).reason());
        assertSame(mine, h.ep());
        assertEquals(ConnState.CONNECTING, h.state());
    }

    @Test
    void ealreadyRejectReturnsToIdleWithoutFailingOps() {
        ConnectionManager<Ep> m = manager(HIGH, 200);
        RxmConnection<Ep> c = m.connection(m.peers().getOrAdd(LOW));
        m.ensureConnected(c);
        m.onRejected(c.ep(), CmData.Reject.of(CmData.REJECT_EALREADY).encode());
        assertEquals(ConnState.IDLE, c.state());
        assertTrue(events.log.isEmpty(), "the peer's own request is coming; nothing failed");
        m.onConnReq(connreq(LOW, 40000), connectData(LOW, 100, 0));
        assertEquals(ConnState.ACCEPTING, c.state());
    }

    @Test
    void connectingToOurselfMakesALoopbackConnection() {
        ConnectionManager<Ep> m = manager(LOW, 100);
        RxmConnection<Ep> c = m.connection(m.peers().getOrAdd(LOW));
        m.ensureConnected(c);
        m.onConnReq(connreq(LOW, 40000), connectData(LOW, 100, 0));
        assertEquals(ConnState.CONNECTING, c.state(), "our own active side keeps going");
        assertEquals(2, m.open().size());
        RxmConnection<Ep> lb = m.open().stream().filter(RxmConnection::isLoopback).findFirst().orElseThrow();
        assertEquals(ConnState.ACCEPTING, lb.state());
        m.onConnected(lb.ep(), null);
        m.onConnected(c.ep(), acceptData(100, 0));
        assertTrue(c.isConnected());
        assertTrue(lb.isConnected());
    }

    @Test
    void samePidDuplicateIsRejectedButRestartedPeerReplacesConnection() {
        ConnectionManager<Ep> m = manager(LOW, 100);
        m.onConnReq(connreq(HIGH, 40000), connectData(HIGH, 200, 0));
        RxmConnection<Ep> c = m.connectionAt(0);
        m.onConnected(c.ep(), null);
        Ep old = c.ep();

        m.onConnReq(connreq(HIGH, 40001), connectData(HIGH, 200, 0));
        assertEquals(CmData.REJECT_EALREADY, CmData.Reject.decode(core.rejects.get(0)).reason());
        assertSame(old, c.ep());

        m.onConnReq(connreq(HIGH, 40002), connectData(HIGH, 201, 4));
        assertTrue(old.closed, "the dead process's connection is closed");
        assertNotSame(old, c.ep());
        assertEquals(201, c.remotePid());
        assertEquals(4, c.remoteIndex());
        assertEquals(List.of("up 0", "down 0 FI_ECONNRESET"), events.log);
        assertEquals(ConnState.ACCEPTING, c.state());
    }

    @Test
    void mismatchedEagerLimitIsRefused() {
        ConnectionManager<Ep> m = manager(LOW, 100);
        byte[] bad = CmData.Connect.local(5000, 8192, 4096, CmData.connId(200, 0)).encode();
        m.onConnReq(connreq(HIGH, 40000), bad);
        assertEquals(CmData.REJECT_ECONNREFUSED, CmData.Reject.decode(core.rejects.get(0)).reason());
        assertTrue(core.eps.isEmpty());
        m.onConnReq(connreq(HIGH, 40000), new byte[3]);
        assertEquals(2, core.rejects.size());
    }

    @Test
    void shutdownFailsConnectionAndStaleEventsAreIgnored() {
        ConnectionManager<Ep> m = manager(LOW, 100);
        RxmConnection<Ep> c = m.connection(m.peers().getOrAdd(HIGH));
        m.ensureConnected(c);
        Ep ep = c.ep();
        m.onConnected(ep, acceptData(200, 1));
        m.onShutdown(ep, 0);
        assertEquals(ConnState.IDLE, c.state());
        assertEquals(List.of("up 0", "down 0 FI_ECONNRESET"), events.log);
        m.onShutdown(ep, 0);
        m.onConnected(ep, acceptData(200, 1));
        assertEquals(ConnState.IDLE, c.state(), "events for a closed core endpoint change nothing");
        assertEquals(2, events.log.size());
    }
}
