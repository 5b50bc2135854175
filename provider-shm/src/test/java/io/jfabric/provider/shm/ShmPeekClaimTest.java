package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.TaggedMsg;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * fi_tagged(3)'s FI_PEEK, FI_CLAIM and FI_DISCARD on shm beyond what the conformance suite's small message covers:
 * messages that wait in the sender's memory (CMA, and the pulled protocol for a heap buffer) are read only when their
 * claim is received, and a discarded one completes its sender's send without being read.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmPeekClaimTest extends ShmPairFixture {
    private static final int LARGE = 150_000;

    private TaggedMsg msg(MemorySegment buf, long tag, Object context) {
        TaggedMsg m = new TaggedMsg(1);
        m.iov[0] = buf;
        m.iovCount = 1;
        m.addr = Fabrics.ADDR_UNSPEC;
        m.tag = tag;
        m.context = context;
        return m;
    }

    /** Drives both sides until b's CQ answers {@code context}: 1 with {@code out}, or -ENOMSG from a peek. */
    private int answer(Object context, CqEntry out) {
        CqEntry[] one = {out};
        CqErrEntry err = new CqErrEntry();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            a.cq.read(new CqEntry[0], 0);
            int rc = b.cq.read(one, 1);
            if (rc == 1 && out.context == context) {
                return 1;
            }
            if (rc == -Errno.EAVAIL) {
                b.cq.readError(err, 0);
                assertSame(context, err.context, "error entry " + err);
                assertEquals(Errno.ENOMSG, err.err, "only a peek that finds nothing may fail: " + err);
                return -Errno.ENOMSG;
            }
        }
        throw new AssertionError("no answer for " + context + ": " + b.ep);
    }

    /** Peeks (with {@code flags}) until the message with {@code tag} has arrived; returns the peek's entry. */
    private CqEntry peekUntilFound(long tag, long flags, Object context) {
        CqEntry found = new CqEntry();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        do {
            assertEquals(0, b.ep.trecvmsg(msg(arena.allocate(1), tag, context), OpFlags.PEEK | flags));
        } while (answer(context, found) == -Errno.ENOMSG && System.nanoTime() < deadline);
        assertSame(context, found.context, "the peek found tag " + tag);
        return found;
    }

    /** Drives both sides until a's send with {@code context} completes; fails on an error. */
    private void sendCompletes(Object context) {
        awaitEntry(a, e -> e.context == context, "send " + context);
    }

    @Test
    void aPeekRightAfterTheSendSeesTheMessageStillInTheRing() {
        MemorySegment small = arena.allocate(64);
        assertEquals(0, a.ep.tsend(small, null, aToB, 0x51, "s"));
        // no CQ read on b in between: the peek itself takes the message off b's ring
        assertEquals(0, b.ep.trecvmsg(msg(arena.allocate(1), 0x51, "peek"), OpFlags.PEEK));
        CqEntry[] one = {new CqEntry()};
        assertEquals(1, b.cq.readFrom(one, 1), "the peek answers at once: " + b.ep);
        assertSame("peek", one[0].context);
        assertEquals(64, one[0].len);
        assertEquals(0x51, one[0].tag);
    }

    @Test
    void largeMessagesAreReadOnlyWhenTheirClaimIsReceived() {
        MemorySegment cma = arena.allocate(LARGE);
        ShmEndpointTest.fill(cma, 3);
        MemorySegment heap = MemorySegment.ofArray(new byte[LARGE]); // sent through the sender's bounce slots
        ShmEndpointTest.fill(heap, 4);
        assertEquals(0, a.ep.tsend(cma, null, aToB, 0x10, "cma"));
        assertEquals(0, a.ep.tsend(heap, null, aToB, 0x20, "pulled"));
        for (long tag : new long[] {0x10, 0x20}) {
            Object claim = new Object();
            CqEntry found = peekUntilFound(tag, OpFlags.CLAIM, claim);
            assertEquals(LARGE, found.len, "the peek tells the length");
            assertEquals(tag, found.tag);
            MemorySegment rx = arena.allocate(LARGE);
            assertEquals(-Errno.EINVAL, b.ep.trecvmsg(msg(rx, tag, "not the claim's"), OpFlags.CLAIM),
                    "FI_CLAIM with a context that claimed nothing");
            assertEquals(0, b.ep.trecvmsg(msg(rx, tag, claim), OpFlags.CLAIM));
            CqEntry got = new CqEntry();
            assertEquals(1, answer(claim, got));
            assertEquals(LARGE, got.len);
            assertEquals(-1, rx.mismatch(tag == 0x10 ? cma : heap), "claimed message " + tag);
        }
        sendCompletes("cma");
        sendCompletes("pulled");
    }

    @Test
    void aDiscardedLargeMessageCompletesItsSendUnread() {
        MemorySegment big = arena.allocate(LARGE);
        assertEquals(0, a.ep.tsend(big, null, aToB, 0x30, "discarded"));
        CqEntry found = peekUntilFound(0x30, OpFlags.DISCARD, "peek-discard");
        assertEquals(LARGE, found.len);
        sendCompletes("discarded");
        assertEquals(-Errno.ENOMSG, answerOf(0x30, "gone"), "a discarded message is gone");

        // FI_PEEK|FI_CLAIM, then FI_CLAIM|FI_DISCARD: the claimed message is dropped instead of received
        assertEquals(0, a.ep.tsend(big, null, aToB, 0x40, "claimed then dropped"));
        Object claim = new Object();
        peekUntilFound(0x40, OpFlags.CLAIM, claim);
        assertEquals(0, b.ep.trecvmsg(msg(arena.allocate(8), 0x40, claim), OpFlags.CLAIM | OpFlags.DISCARD));
        CqEntry dropped = new CqEntry();
        assertEquals(1, answer(claim, dropped));
        assertEquals(0, dropped.len, "nothing was received");
        sendCompletes("claimed then dropped");
        assertEquals(-Errno.ENOMSG, answerOf(0x40, "gone too"));
    }

    private int answerOf(long tag, Object context) {
        assertEquals(0, b.ep.trecvmsg(msg(arena.allocate(1), tag, context), OpFlags.PEEK));
        return answer(context, new CqEntry());
    }
}
