package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The connection and data cases across two JVMs: this process connects (or inserts the address of) a
 * {@link PeerMain} in a second JVM, is rejected with data, connects again, and every size comes back
 * through the peer's echo intact.
 */
@Timeout(120)
class TwoProcessTest {
    static final long[] SIZES = {0, 1, 4096, 65536, 1 << 20, 16 << 20};
    static final long T = 30_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void msgRejectConnectEchoAndShutdownWithAPeerProcess(FabricCase c) throws Exception {
        Gate.msgEndpoint(c);
        Gate.messaging(c);
        dump.caseUnderTest(c);
        PeerProcess peer = PeerProcess.start(c, "server", dump);
        byte[] server = peer.expectAddress(T);
        Poller poller = new Poller();

        // first attempt: the peer rejects it, with data
        Side refused = new Side("refused", c, dump);
        EndpointPair.openSide(refused, c, dump, new EndpointPair.Options(), c.freshInfo(), poller);
        refused.ep.connect(server, PeerMain.REJECT_ME);
        EqEntry ev = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        int rc = poller.awaitEvent(refused.eq, ev, err, T);
        if (rc != -Errno.EAVAIL) {
            fail("a connect the peer rejects must end in an EQ error, got " + (rc < 0 ? Errno.name(rc) : ev));
        }
        assertEquals(Errno.ECONNREFUSED, err.err, err.toString());
        assertArrayEquals(PeerMain.REJECTED, err.errData, "reject data from the other process");
        peer.expect("REJECTED", T);

        // second attempt: accepted
        Side me = new Side("client", c, dump);
        EndpointPair.openSide(me, c, dump, new EndpointPair.Options(), c.freshInfo(), poller);
        me.ep.connect(server, EndpointPair.bytes("hello"));
        EqEntry connected = poller.expectEvent(me.eq, EqEvent.CONNECTED, T, "connect to the peer process");
        assertSame(me.ep, connected.fid);
        assertArrayEquals(PeerMain.ACCEPTED, connected.cmData, "accept data from the other process");
        peer.expect("CONNECTED", T);

        echoEverySize(c, me, poller);

        me.ep.shutdown(0);
        peer.expect("SHUTDOWN", T);
        assertEquals(0, peer.awaitExit(T), "peer exit status; its stderr is in " + peer.log());
    }

    @ForEachFabric
    void rdmAddressExchangeAndEchoWithAPeerProcess(FabricCase c) throws Exception {
        Gate.connectionless(c);
        Gate.messaging(c);
        dump.caseUnderTest(c);
        PeerProcess peer = PeerProcess.start(c, "peer", dump);
        byte[] peerName = peer.expectAddress(T);
        Poller poller = new Poller();
        Side me = new Side("local", c, dump);
        EndpointPair.openSide(me, c, dump, new EndpointPair.Options(), c.freshInfo(), poller);
        me.peer = me.av.insert(peerName);
        peer.send("PEER " + HexFormat.of().formatHex(me.ep.getName()));
        peer.expect("READY", T);

        echoEverySize(c, me, poller);

        peer.send("QUIT");
        assertEquals(0, peer.awaitExit(T), "peer exit status; its stderr is in " + peer.log());
    }

    private void echoEverySize(FabricCase c, Side me, Poller poller) {
        try (Arena arena = Arena.ofShared()) {
            long max = Math.min(16 << 20, c.maxMsgSize());
            MemorySegment tx = Mem.alloc(arena, max);
            MemorySegment rx = Mem.alloc(arena, max);
            MemoryRegion txMr = me.desc(tx);
            MemoryRegion rxMr = me.desc(rx);
            for (long size : SIZES) {
                if (size > max) {
                    System.out.println(c.id() + ": " + size + " B is above max_msg_size; not run");
                    continue;
                }
                dump.note("echo of " + size + " B");
                MemorySegment t = tx.asSlice(0, size);
                MemorySegment r = rx.asSlice(0, size);
                Mem.fill(t, size + 1000);
                Mem.fill(r, (byte) 0);
                poller.post("fi_recv", () -> me.ep.recv(r, rxMr, Fabrics.ADDR_UNSPEC, "echo"));
                int rc;
                long deadline = System.nanoTime() + Slow.ms(T) * 1_000_000L;
                while ((rc = me.ep.send(t, txMr, me.peer, "ping")) == -Errno.EAGAIN && System.nanoTime() < deadline) {
                    poller.drive();
                }
                assertEquals(0, rc, "fi_send of " + size + " B to the peer process");
                poller.expectSuccess(me.txCq, new CqEntry(), T, "send of " + size + " B to the peer process");
                CqEntry re = poller.expectSuccess(me.rxCq, new CqEntry(), T, "echo of " + size + " B");
                assertEquals(size, re.len, "echoed length");
                assertEquals(-1, Mem.mismatch(r, size + 1000), "first corrupt byte of the " + size + " B echo");
            }
        }
    }
}
