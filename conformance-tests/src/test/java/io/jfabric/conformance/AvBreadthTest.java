package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.CqEntry;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fabtests av_test beyond {@link AddressVectorTest}: asynchronous (FI_EVENT) insert, batches mixing good and bad
 * addresses without FI_SYNC_ERR, lookups of fi_addrs never handed out, and remove/reinsert while traffic flows.
 */
@Timeout(60)
class AvBreadthTest {
    static final long T = 10_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    private static AvType typeOf(Side s) {
        AvType t = s.info.domainAttr.avType;
        return t == AvType.UNSPEC ? AvType.MAP : t;
    }

    @ForEachFabric
    void asyncInsertReportsAvCompleteOnTheBoundEq(FabricCase c) {
        Gate.connectionless(c);
        EndpointPair p = EndpointPair.open(c, dump);
        AvAttr attr = AvAttr.of(typeOf(p.a));
        attr.flags = AvAttr.EVENT;
        AddressVector av;
        EventQueue eq = dump.track(p.a.fabric.openEq(EqAttr.defaults()));
        try {
            av = dump.track(p.a.domain.openAv(attr));
            av.bind(eq);
        } catch (FabricException e) {
            Gate.require(e.errno() != Errno.ENOSYS && e.errno() != Errno.EOPNOTSUPP, c,
                    "does not offer asynchronous AV inserts (FI_EVENT): " + e.getMessage());
            throw e;
        }
        long[] out = new long[2];
        Object ctx = "av-insert";
        int rc = av.insert(new byte[][] {p.b.ep.getName(), p.a.ep.getName()}, out, 0, ctx);
        assertTrue(rc >= 0, "asynchronous fi_av_insert returned " + Errno.name(rc));
        EqEntry ev = p.poller.expectEvent(eq, EqEvent.AV_COMPLETE, T, "FI_AV_COMPLETE of an FI_EVENT insert");
        assertSame(ctx, ev.context, "FI_AV_COMPLETE carries the insert's context");
        assertEquals(2, ev.data, "FI_AV_COMPLETE's data is the number of addresses inserted");
        assertArrayEquals(p.b.ep.getName(), av.lookup(out[0]), "the first inserted address looks up");
        assertArrayEquals(p.a.ep.getName(), av.lookup(out[1]), "the second inserted address looks up");
    }

    @ForEachFabric
    void aBatchWithBadAddressesInsertsTheGoodOnesAndMarksTheRest(FabricCase c) {
        Gate.connectionless(c);
        EndpointPair p = EndpointPair.open(c, dump);
        byte[] good = p.b.ep.getName();
        byte[] truncated = java.util.Arrays.copyOf(good, Math.max(1, good.length / 2));
        byte[] empty = new byte[0];
        byte[] garbage = new byte[good.length];
        java.util.Arrays.fill(garbage, (byte) 0xFF);
        AddressVector av = dump.track(p.a.domain.openAv(AvAttr.of(typeOf(p.a))));
        byte[][] batch = {good, empty, truncated, garbage, p.a.ep.getName()};
        long[] out = new long[batch.length];
        int n = av.insert(batch, out, 0, null);
        int refused = 0;
        for (int i = 0; i < batch.length; i++) {
            if (out[i] == Fabrics.ADDR_NOTAVAIL) {
                refused++;
            }
        }
        assertNotEquals(Fabrics.ADDR_NOTAVAIL, out[0], "the good address of the batch is inserted");
        assertNotEquals(Fabrics.ADDR_NOTAVAIL, out[4], "the good address after the bad ones is inserted");
        assertEquals(Fabrics.ADDR_NOTAVAIL, out[1], "an empty address maps to FI_ADDR_NOTAVAIL");
        assertEquals(Fabrics.ADDR_NOTAVAIL, out[2], "a truncated address maps to FI_ADDR_NOTAVAIL");
        assertEquals(batch.length - refused, n, "fi_av_insert returns the number inserted");
        assertArrayEquals(good, av.lookup(out[0]), "the good address survived the bad ones around it");
        assertArrayEquals(p.a.ep.getName(), av.lookup(out[4]));
    }

    @ForEachFabric
    void lookupAndRemoveOfAnFiAddrNeverInsertedFail(FabricCase c) {
        Gate.connectionless(c);
        EndpointPair p = EndpointPair.open(c, dump);
        long never = p.a.peer + 1000;
        FabricException e = assertThrows(FabricException.class, () -> p.a.av.lookup(never),
                "fi_av_lookup of an fi_addr never handed out");
        assertTrue(Set.of(Errno.ENOENT, Errno.EINVAL).contains(e.errno()), "errno " + e.errno() + ": " + e.getMessage());
        int rc;
        try {
            rc = p.a.av.remove(new long[] {never}, 0);
        } catch (FabricException x) {
            rc = -x.errno();
        }
        assertTrue(rc < 0, "fi_av_remove of an fi_addr never handed out returned " + rc);
        assertArrayEquals(p.b.ep.getName(), p.a.av.lookup(p.a.peer), "the valid entry is unaffected");
    }

    @ForEachFabric
    void removeAndReinsertDuringTraffic(FabricCase c) {
        Gate.connectionless(c);
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        int rounds = 3;
        int perRound = 8;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tx = Mem.alloc(arena, 256);
            MemorySegment back = Mem.alloc(arena, 256);
            MemorySegment[] rx = new MemorySegment[perRound];
            for (int i = 0; i < perRound; i++) {
                rx[i] = Mem.alloc(arena, 256);
            }
            MemorySegment backRx = Mem.alloc(arena, 256);
            for (int round = 0; round < rounds; round++) {
                dump.note("round " + round + ", a's fi_addr of b = " + p.a.peer);
                long seed = 100 + round;
                Mem.fill(tx, seed);
                for (int i = 0; i < perRound; i++) {
                    MemorySegment r = rx[i];
                    p.poller.post("fi_recv", () -> p.b.ep.recv(r, p.b.desc(r), Fabrics.ADDR_UNSPEC, r));
                }
                // b keeps talking to a while a removes and reinserts b: a's AV change must not lose it
                Mem.fill(back, seed + 50);
                p.poller.post("fi_recv on a", () -> p.a.ep.recv(backRx, p.a.desc(backRx), Fabrics.ADDR_UNSPEC, "back"));
                p.poller.post("fi_send b->a", () -> p.b.ep.send(back, p.b.desc(back), p.b.peer, "b-send"));
                for (int i = 0; i < perRound; i++) {
                    p.poller.post("fi_send a->b", () -> p.a.ep.send(tx, p.a.desc(tx), p.a.peer, "a-send"));
                }
                for (int i = 0; i < perRound; i++) {
                    p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "send " + i + " of round " + round);
                    CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "receive " + i + " of round " + round);
                    assertEquals(256, re.len);
                    assertEquals(-1, Mem.mismatch(Mem.postedBuffer(re), seed), "payload of round " + round);
                }
                assertEquals(0, p.a.av.remove(new long[] {p.a.peer}, 0), "fi_av_remove of the peer");
                long removed = p.a.peer;
                p.a.peer = p.a.av.insert(p.b.ep.getName());
                dump.note("reinserted as " + p.a.peer + " (was " + removed + ")");
                assertEquals("back", p.poller.expectSuccess(p.a.rxCq, new CqEntry(), T, "b's message while a's AV changed").context);
                assertEquals(-1, Mem.mismatch(backRx, seed + 50), "b's payload");
                p.poller.expectSuccess(p.b.txCq, new CqEntry(), T, "b's send");
            }
        }
    }
}
