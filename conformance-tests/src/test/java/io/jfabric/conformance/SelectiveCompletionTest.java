package io.jfabric.conformance;

import io.jfabric.BindFlags;
import io.jfabric.CqEntry;
import io.jfabric.Fabrics;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** FI_SELECTIVE_COMPLETION: only operations posted with FI_COMPLETION produce a success completion. */
@Timeout(60)
class SelectiveCompletionTest {
    static final long T = 20_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void onlyOperationsAskingForACompletionGetOne(FabricCase c) {
        Gate.messaging(c);
        EndpointPair.Options o = new EndpointPair.Options();
        o.txBindFlags = BindFlags.SELECTIVE_COMPLETION;
        o.alterInfo = i -> i.txAttr.opFlags &= ~OpFlags.COMPLETION;
        EndpointPair p;
        try {
            p = EndpointPair.open(c, dump, o);
        } catch (EndpointPair.BindRefused e) {
            Gate.require(false, c, "does not offer FI_SELECTIVE_COMPLETION: " + e.getMessage());
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment r1 = Mem.alloc(arena, 32);
            MemorySegment r2 = Mem.alloc(arena, 32);
            MemorySegment t1 = Mem.alloc(arena, 32);
            MemorySegment t2 = Mem.alloc(arena, 32);
            Mem.fill(t1, 1);
            Mem.fill(t2, 2);
            p.poller.post("fi_recv", () -> p.b.ep.recv(r1, p.b.desc(r1), Fabrics.ADDR_UNSPEC, "r1"));
            p.poller.post("fi_recv", () -> p.b.ep.recv(r2, p.b.desc(r2), Fabrics.ADDR_UNSPEC, "r2"));
            p.poller.post("fi_send without FI_COMPLETION", () -> p.a.ep.send(t1, p.a.desc(t1), p.a.peer, "silent"));
            Msg m = new Msg(1).set(t2, p.a.desc(t2), p.a.peer, "wanted");
            p.poller.post("fi_sendmsg with FI_COMPLETION", () -> p.a.ep.sendmsg(m, OpFlags.COMPLETION));
            assertSame("r1", p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "first receive").context);
            assertSame("r2", p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "second receive").context);
            assertEquals(-1, Mem.mismatch(r1, 1));
            assertEquals(-1, Mem.mismatch(r2, 2));
            CqEntry te = p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "the send that asked for a completion");
            assertSame("wanted", te.context, "the only transmit completion is the one asked for");
            p.poller.expectQuiet(p.a.txCq, 200, "no completion for the send without FI_COMPLETION");
        }
    }
}
