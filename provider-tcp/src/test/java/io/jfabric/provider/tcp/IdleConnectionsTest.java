package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.BindFlags;
import io.jfabric.CqEntry;
import io.jfabric.Endpoint;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A CQ that drives many connections (an rxm endpoint's core CQ with many peers) stops reading the idle ones on
 * every poll: they wait in its {@link QuietSet} and are read once it says data came (or on a periodic re-check),
 * while nothing that arrives is missed, a message or a peer's close.
 */
@Timeout(60)
class IdleConnectionsTest {
    private static final int PEERS = 12;
    private final Arena arena = Arena.ofShared();
    private final List<Endpoint> serverEps = new ArrayList<>();
    private final List<Endpoint> clientEps = new ArrayList<>();
    private Loopback.Side server;
    private Loopback.Side client;
    private PassiveEndpoint pep;

    @AfterEach
    void tearDown() {
        for (Endpoint ep : clientEps) {
            ep.close();
        }
        for (Endpoint ep : serverEps) {
            ep.close();
        }
        if (pep != null) {
            pep.close();
        }
        Loopback.closeSide(client);
        Loopback.closeSide(server);
        if (client != null) {
            client.fabric.close();
            server.fabric.close();
        }
        arena.close();
    }

    private void connectPeers() {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        server = Loopback.open(info);
        client = Loopback.open(info);
        server.partner = client;
        client.partner = server;
        pep = server.fabric.openPassiveEndpoint(info);
        pep.bind(server.eq);
        pep.listen();
        for (int i = 0; i < PEERS; i++) {
            Endpoint c = client.domain.openEndpoint(info);
            c.bind(client.eq);
            c.bind(client.cq, BindFlags.TRANSMIT | BindFlags.RECV);
            c.enable();
            c.connect(pep.getName(), null);
            clientEps.add(c);
            EqEntry req = server.waitEq(EqEvent.CONNREQ, 5000);
            Endpoint s = server.domain.openEndpoint(req.info);
            s.bind(server.eq);
            s.bind(server.cq, BindFlags.TRANSMIT | BindFlags.RECV);
            s.enable();
            s.accept(null);
            serverEps.add(s);
            server.waitEq(EqEvent.CONNECTED, 5000);
            client.waitEq(EqEvent.CONNECTED, 5000);
        }
    }

    private static TcpConnection conn(Endpoint ep) {
        return ((TcpEndpoint) ep).connection();
    }

    private long serverReads() {
        long n = 0;
        for (Endpoint ep : serverEps) {
            n += conn(ep).socketReads();
        }
        return n;
    }

    private void spinServer(int polls) {
        CqEntry e = new CqEntry();
        for (int i = 0; i < polls; i++) {
            assertEquals(-Errno.EAGAIN, server.cq.read(e));
        }
    }

    @Test
    void idleConnectionsAreNotReadOnEveryPollAndMessagesStillArrive() {
        connectPeers();
        spinServer(4 * TcpConnection.QUIET_AFTER);
        for (Endpoint ep : serverEps) {
            assertTrue(conn(ep).isQuiet(), "a connection idle for " + 4 * TcpConnection.QUIET_AFTER
                    + " polls of a CQ driving " + PEERS + " waits in its quiet set");
        }
        int polls = 10 * TcpConnection.QUIET_RECHECK;
        long before = serverReads();
        spinServer(polls);
        long reads = serverReads() - before;
        // read directly, each idle connection would be read on every other poll: PEERS * polls / 2
        assertTrue(reads <= PEERS * (polls / TcpConnection.QUIET_RECHECK + 1),
                polls + " idle polls read " + PEERS + " quiet connections " + reads + " times");

        MemorySegment[] rx = new MemorySegment[PEERS];
        for (int i = 0; i < PEERS; i++) {
            rx[i] = arena.allocate(64);
            assertEquals(0, serverEps.get(i).recv(rx[i], null, 0, i));
        }
        for (int i = 0; i < PEERS; i++) {
            MemorySegment tx = arena.allocate(64).fill((byte) (i + 1));
            assertEquals(0, clientEps.get(i).send(tx, null, 0, "tx" + i));
        }
        Set<Object> got = new HashSet<>();
        while (got.size() < PEERS) {
            CqEntry e = server.waitCq(10_000);
            assertTrue(got.add(e.context), "one completion per receive");
            int i = (Integer) e.context;
            assertEquals(-1, rx[i].mismatch(arena.allocate(64).fill((byte) (i + 1))), "peer " + i + "'s bytes");
        }
        for (Endpoint ep : serverEps) {
            assertFalse(conn(ep).isQuiet(), "a connection that received is read directly again");
        }
    }

    @Test
    void aQuietConnectionsPeerClosingIsNoticedFromTheEqAlone() {
        connectPeers();
        spinServer(4 * TcpConnection.QUIET_AFTER);
        assertTrue(conn(serverEps.get(0)).isQuiet());
        clientEps.remove(0).close();
        // only the EQ is read: its passes re-check quiet connections, so the end of stream is found
        server.partner = null;
        EqEntry shut = server.waitEq(EqEvent.SHUTDOWN, 10_000);
        assertEquals(serverEps.get(0), shut.fid);
    }
}
