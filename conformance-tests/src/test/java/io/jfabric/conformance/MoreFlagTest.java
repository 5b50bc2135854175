package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FI_MORE (fi_msg(3)): the provider may hold an operation back until one comes without the flag, but nothing
 * posted with it is lost: a burst whose last post lacks the flag arrives whole, and operations left waiting
 * behind FI_MORE leave at the next progress call, with their completions.
 */
@Timeout(60)
class MoreFlagTest {
    static final long T = 20_000;
    static final int BURST = 16;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void aBurstOfInjectsWithMoreArrivesWhole(FabricCase c) {
        Gate.messaging(c);
        Gate.require(c.injectSize() >= 16, c, "inject_size below 16 B");
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] rx = postReceives(p, arena);
            MemorySegment tx = Mem.alloc(arena, 16);
            Msg m = new Msg(1);
            for (int i = 0; i < BURST; i++) {
                Mem.fill(tx, i + 1);
                if (i < BURST - 1) {
                    m.set(tx, null, p.a.peer, null);
                    post(p, () -> p.a.ep.sendmsg(m, OpFlags.INJECT | OpFlags.MORE), "fi_sendmsg(FI_INJECT | FI_MORE)");
                } else {
                    post(p, () -> p.a.ep.inject(tx, p.a.peer), "fi_inject, the burst's last");
                }
                Mem.fill(tx, (byte) 0xEE); // an inject's buffer is the caller's again, FI_MORE or not
            }
            expectArrivals(p, rx, 16);
            // fi_sendmsg with FI_INJECT completes as any send on a binding without FI_SELECTIVE_COMPLETION
            // (fi_msg(3)); the last, an fi_inject call, reports nothing
            for (int i = 0; i < BURST - 1; i++) {
                CqEntry te = p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "completion of fi_sendmsg " + i);
                assertTrue((te.flags & OpFlags.SEND) != 0, "a send's completion: " + te);
            }
            p.poller.expectQuiet(p.a.txCq, 200, "fi_inject reports no completion");
        }
    }

    @ForEachFabric
    void sendsLeftWaitingBehindMoreLeaveAtTheNextProgressCall(FabricCase c) {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] rx = postReceives(p, arena);
            Set<Object> sent = new HashSet<>();
            for (int i = 0; i < BURST; i++) {
                MemorySegment tx = Mem.alloc(arena, 32);
                Mem.fill(tx, i + 1);
                Msg m = new Msg(1).set(tx, p.a.desc(tx), p.a.peer, "send" + i);
                sent.add(m.context);
                // no post without FI_MORE follows: only the CQ reads below drive them
                post(p, () -> p.a.ep.sendmsg(m, OpFlags.COMPLETION | OpFlags.MORE), "fi_sendmsg(FI_MORE)");
            }
            expectArrivals(p, rx, 32);
            for (int i = 0; i < BURST; i++) {
                CqEntry te = p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "completion of send " + i);
                assertTrue(sent.remove(te.context), "unexpected or repeated context " + te.context);
            }
        }
    }

    private static MemorySegment[] postReceives(EndpointPair p, Arena arena) {
        MemorySegment[] rx = new MemorySegment[BURST];
        for (int i = 0; i < BURST; i++) {
            MemorySegment buf = Mem.alloc(arena, 32);
            rx[i] = buf;
            Integer slot = i;
            p.poller.post("fi_recv", () -> p.b.ep.recv(buf, p.b.desc(buf), Fabrics.ADDR_UNSPEC, slot));
        }
        return rx;
    }

    /** Posts, driving progress while the provider answers -EAGAIN. */
    private static void post(EndpointPair p, java.util.function.IntSupplier op, String what) {
        int rc;
        long deadline = System.nanoTime() + Slow.ms(T) * 1_000_000L;
        while ((rc = op.getAsInt()) == -Errno.EAGAIN && System.nanoTime() < deadline) {
            p.poller.drive();
        }
        assertEquals(0, rc, what);
    }

    /** Every message of the burst arrives once, each with its own fill (1 .. BURST), whatever the order. */
    private static void expectArrivals(EndpointPair p, MemorySegment[] rx, long len) {
        Set<Integer> fills = new HashSet<>();
        for (int i = 0; i < BURST; i++) {
            CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "receive " + i + " of the burst");
            assertEquals(len, re.len, "length of receive " + i);
            MemorySegment buf = rx[(Integer) re.context];
            int fill = -1;
            for (int seed = 1; seed <= BURST; seed++) {
                if (Mem.mismatch(buf.asSlice(0, len), seed) == -1) {
                    fill = seed;
                }
            }
            assertTrue(fill > 0, "receive " + i + " holds none of the burst's messages");
            assertTrue(fills.add(fill), "message " + fill + " arrived twice");
        }
    }
}
