package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FI_MULTI_RECV with rendezvous messages read through the core (same-host copy off, as between hosts): a
 * rendezvous slice lands after the slices carved behind it, so the buffer's release, the completion with
 * FI_MULTI_RECV, waits for it (fi_cq(3): an application may free the buffer on that completion).
 */
@Timeout(60)
class RxmMultiRecvTest extends RxmPairFixture {
    @Override
    protected void beforeOpen() {
        System.setProperty("jfabric.ofi_rxm.same_host_copy", "0");
    }

    @Override
    protected void afterClose() {
        System.clearProperty("jfabric.ofi_rxm.same_host_copy");
    }

    @Test
    void anEagerMessageThatUsesUpTheBufferLeavesTheReleaseToTheRendezvousBeforeIt() {
        MemorySegment buf = arena.allocate(120_000);
        b.ep.setOpt(EndpointOption.MIN_MULTI_RECV, 10_000);
        assertEquals(0, b.ep.recvmsg(new Msg().set(buf, null, -1L, "multi"), OpFlags.MULTI_RECV));
        MemorySegment big = RxmNode.pattern(arena, 100_000, 5);
        MemorySegment small = RxmNode.pattern(arena, 12_000, 6);
        assertEquals(0, RxmNode.retry(() -> a.ep.send(big, null, aToB, "big"), 10_000, a, b));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(small, null, aToB, "small"), 10_000, a, b));
        RxmNode.await(() -> false, 100, a); // the sender alone puts both on the wire
        // the receiver alone: it asks for the big message's bytes and places the small one, which uses up the buffer
        RxmNode.await(() -> false, 200, b);
        assertTrue(RxmNode.await(() -> b.completions.size() == 2, 10_000, a, b), () -> b.completions + " " + b.errors);
        CqEntry first = b.completions.get(0);
        CqEntry second = b.completions.get(1);
        assertEquals(12_000, first.len, "the eager message lands first: " + b.completions);
        assertEquals(buf.address() + 100_000, first.buf, "behind the rendezvous message's slice");
        assertEquals(0, first.flags & OpFlags.MULTI_RECV, "the rendezvous message is still landing in the buffer");
        assertEquals(100_000, second.len);
        assertEquals(buf.address(), second.buf);
        assertTrue((second.flags & OpFlags.MULTI_RECV) != 0, "the last slice to land releases the buffer");
        assertEquals(-1, big.mismatch(buf.asSlice(0, 100_000)));
        assertEquals(-1, small.mismatch(buf.asSlice(100_000, 12_000)));
    }

    @Test
    void aBufferCancelledWhileARendezvousLandsInItIsReleasedByThatMessage() {
        MemorySegment buf = arena.allocate(256 * 1024);
        assertEquals(0, b.ep.recvmsg(new Msg().set(buf, null, -1L, "multi"), OpFlags.MULTI_RECV));
        MemorySegment big = RxmNode.pattern(arena, 100_000, 7);
        assertEquals(0, RxmNode.retry(() -> a.ep.send(big, null, aToB, "big"), 10_000, a, b));
        RxmNode.await(() -> false, 100, a); // the sender alone puts the rendezvous request on the wire
        // the receiver alone: it matches the rendezvous request and reads from a sender that does not answer yet
        RxmNode.await(() -> false, 200, b);
        assertEquals(0, b.ep.cancel("multi"));
        assertTrue(RxmNode.await(() -> b.errorFor("multi") != null, 5_000, b));
        assertEquals(Errno.ECANCELED, b.errorFor("multi").err);
        assertEquals(0, b.errorFor("multi").flags & OpFlags.MULTI_RECV, "not released while a message lands in it");
        assertTrue(b.completions.isEmpty(), "the rendezvous message has not landed yet: " + b.completions);

        assertTrue(RxmNode.await(() -> b.completionFor("multi") != null, 10_000, a, b), () -> b.errors.toString());
        CqEntry last = b.completionFor("multi");
        assertEquals(100_000, last.len);
        assertTrue((last.flags & OpFlags.MULTI_RECV) != 0, "the rendezvous message's completion releases the buffer");
        assertEquals(-1, big.mismatch(buf.asSlice(0, 100_000)));
    }
}
