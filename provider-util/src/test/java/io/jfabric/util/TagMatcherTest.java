package io.jfabric.util;

import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class TagMatcherTest {

    private static TagMatcher.Recv post(TagMatcher m, Object ctx, boolean tagged, long tag, long ignore, long src) {
        TagMatcher.Recv r = m.newRecv();
        r.context = ctx;
        r.tagged = tagged;
        r.tag = tag;
        r.ignore = ignore;
        r.src = src;
        r.length = 100;
        m.post(r);
        return r;
    }

    @Test
    void tagAndIgnoreRule() {
        assertTrue(TagMatcher.tagMatches(0x1234, 0, 0x1234));
        assertFalse(TagMatcher.tagMatches(0x1234, 0, 0x1235));
        assertTrue(TagMatcher.tagMatches(0x1200, 0xff, 0x12ab));
        assertFalse(TagMatcher.tagMatches(0x1200, 0xff, 0x13ab));
        assertTrue(TagMatcher.tagMatches(0, -1L, 0xdeadbeefL));
    }

    @Test
    void postedReceivesMatchInPostingOrderAndQueuesAreSeparate() {
        TagMatcher m = new TagMatcher(8, 8, false, 0);
        post(m, "wild", true, 0x100, 0xff, Fabrics.ADDR_UNSPEC);
        post(m, "exact", true, 0x105, 0, Fabrics.ADDR_UNSPEC);
        post(m, "msg", false, 0, 0, Fabrics.ADDR_UNSPEC);
        assertEquals(3, m.postedCount());
        assertEquals("wild", m.matchPosted(true, 0x105, 3).context, "first posted that matches wins");
        assertEquals("exact", m.matchPosted(true, 0x105, 3).context);
        assertNull(m.matchPosted(true, 0x105, 3));
        assertNull(m.matchPosted(true, 0, 3), "untagged receives never take tagged messages");
        assertEquals("msg", m.matchPosted(false, 0, 3).context);
        assertEquals(0, m.postedCount());
    }

    @Test
    void directedReceiveFiltersOnSourceOnlyWhenEnabled() {
        TagMatcher directed = new TagMatcher(8, 8, true, 0);
        post(directed, "from5", true, 1, 0, 5);
        assertNull(directed.matchPosted(true, 1, 6));
        assertEquals("from5", directed.matchPosted(true, 1, 5).context);
        post(directed, "any", true, 1, 0, Fabrics.ADDR_UNSPEC);
        assertEquals("any", directed.matchPosted(true, 1, 6).context);

        TagMatcher plain = new TagMatcher(8, 8, false, 0);
        post(plain, "from5", true, 1, 0, 5);
        assertEquals("from5", plain.matchPosted(true, 1, 6).context, "without FI_DIRECTED_RECV the source is ignored");
    }

    @Test
    void unexpectedMessagesWaitInArrivalOrderAndAreBounded() {
        TagMatcher m = new TagMatcher(4, 2, true, 0);
        TagMatcher.Unexpected u1 = m.addUnexpected(true, 7, 1, 10, 0, OpFlags.TAGGED);
        u1.payload = "p1";
        TagMatcher.Unexpected u2 = m.addUnexpected(true, 7, 2, 20, 0, OpFlags.TAGGED);
        assertNotNull(u2);
        assertNull(m.addUnexpected(false, 0, 1, 5, 0, 0), "full: backpressure");
        assertEquals(0, m.unexpectedRoom());
        assertSame(u2, m.takeUnexpected(true, 7, 0, 2), "directed: only the message from 2");
        assertSame(u1, m.takeUnexpected(true, 0, -1L, Fabrics.ADDR_UNSPEC));
        assertEquals("p1", u1.payload);
        assertNull(m.takeUnexpected(true, 7, 0, Fabrics.ADDR_UNSPEC));
        m.free(u1);
        m.free(u2);
        assertEquals(2, m.unexpectedRoom());
    }

    @Test
    void peekClaimAndDiscard() {
        TagMatcher m = new TagMatcher(4, 4, false, 0);
        TagMatcher.Unexpected a = m.addUnexpected(true, 0xa, 1, 10, 99, OpFlags.TAGGED | OpFlags.REMOTE_CQ_DATA);
        TagMatcher.Unexpected b = m.addUnexpected(true, 0xb, 1, 20, 0, OpFlags.TAGGED);
        assertNull(m.findUnexpected(true, 0xc, 0, Fabrics.ADDR_UNSPEC), "peek miss: provider writes ENOMSG");
        TagMatcher.Unexpected peeked = m.findUnexpected(true, 0xa, 0, Fabrics.ADDR_UNSPEC);
        assertSame(a, peeked);
        assertEquals(99, peeked.data);
        assertEquals(2, m.unexpectedCount(), "peek leaves the message queued");

        Object claimCtx = new Object();
        m.claim(a, claimCtx);
        assertSame(claimCtx, a.claimedBy());
        assertSame(b, m.findUnexpected(true, 0, -1L, Fabrics.ADDR_UNSPEC),
                "a claimed message is hidden from other peeks");
        assertNull(m.takeUnexpected(true, 0xa, 0, Fabrics.ADDR_UNSPEC), "and from other receives");
        assertNull(m.takeClaimed(new Object()));
        assertSame(a, m.takeClaimed(claimCtx));
        assertEquals(1, m.unexpectedCount());

        TagMatcher.Unexpected d = m.findUnexpected(true, 0xb, 0, Fabrics.ADDR_UNSPEC);
        m.removeUnexpected(d); // FI_DISCARD
        m.free(d);
        m.free(a);
        assertEquals(0, m.unexpectedCount());
        assertEquals(4, m.unexpectedRoom());
        assertThrows(IllegalArgumentException.class, () -> m.claim(b, null));
    }

    @Test
    void multiRecvBufferIsConsumedAcrossMessagesAndReleased() {
        TagMatcher m = new TagMatcher(4, 4, false, 30);
        TagMatcher.Recv r = m.newRecv();
        r.context = "multi";
        r.flags = OpFlags.MULTI_RECV;
        r.length = 100;
        m.post(r);
        TagMatcher.Recv got = m.matchPosted(false, 0, 1);
        assertSame(r, got);
        assertTrue(r.isPosted(), "a multi-recv buffer stays posted");
        assertEquals(0, m.consumeMultiRecv(r, 40));
        assertFalse(r.released);
        assertSame(r, m.matchPosted(false, 0, 1));
        assertEquals(40, m.consumeMultiRecv(r, 25));
        assertFalse(r.released, "35 bytes left >= min 30");
        assertEquals(35, TagMatcher.remaining(r));
        assertSame(r, m.matchPosted(false, 0, 1));
        assertEquals(65, m.consumeMultiRecv(r, 10));
        assertTrue(r.released, "25 bytes left < min 30: released");
        assertFalse(r.isPosted());
        assertNull(m.matchPosted(false, 0, 1));
        m.free(r);

        TagMatcher exact = new TagMatcher(4, 4, false, 0);
        TagMatcher.Recv f = exact.newRecv();
        f.flags = OpFlags.MULTI_RECV;
        f.length = 10;
        exact.post(f);
        assertEquals(0, exact.consumeMultiRecv(f, 50), "an oversized message takes what fits; caller reports ETRUNC");
        assertEquals(0, TagMatcher.remaining(f));
        assertTrue(f.released);
    }

    @Test
    void cancelByContextTaggedFirst() {
        TagMatcher m = new TagMatcher(4, 4, false, 0);
        Object ctx = new Object();
        TagMatcher.Recv untagged = post(m, ctx, false, 0, 0, Fabrics.ADDR_UNSPEC);
        TagMatcher.Recv tagged = post(m, ctx, true, 1, 0, Fabrics.ADDR_UNSPEC);
        assertSame(tagged, m.cancel(ctx));
        assertSame(untagged, m.cancel(ctx));
        assertNull(m.cancel(ctx));
        assertNull(m.cancel(null));
        m.free(tagged);
        m.free(untagged);
    }

    @Test
    void poolsAreBoundedAndMisuseIsCaught() {
        TagMatcher m = new TagMatcher(2, 1, false, 0);
        TagMatcher.Recv a = post(m, "a", true, 1, 0, Fabrics.ADDR_UNSPEC);
        post(m, "b", true, 2, 0, Fabrics.ADDR_UNSPEC);
        assertNull(m.newRecv(), "rx queue full: -EAGAIN");
        assertThrows(IllegalStateException.class, () -> m.free(a), "still posted");
        assertThrows(IllegalStateException.class, () -> m.post(a), "posted twice");
        TagMatcher.Recv x;
        int flushed = 0;
        while ((x = m.removeFirstPosted()) != null) {
            m.free(x);
            flushed++;
        }
        assertEquals(2, flushed);
        assertNotNull(m.newRecv());
    }

    @Test
    void steadyStateMatchingDoesNotAllocate() {
        TagMatcher m = new TagMatcher(64, 64, true, 0);
        Object ctx = new Object();
        Runnable cycle = () -> {
            for (int i = 0; i < 20_000; i++) {
                TagMatcher.Recv r = m.newRecv();
                r.context = ctx;
                r.tagged = true;
                r.tag = i & 7;
                r.src = Fabrics.ADDR_UNSPEC;
                if (m.takeUnexpected(true, r.tag, 0, r.src) == null) {
                    m.post(r);
                } else {
                    m.free(r);
                }
                TagMatcher.Recv hit = m.matchPosted(true, i & 7, 3);
                if (hit != null) {
                    m.free(hit);
                }
                TagMatcher.Unexpected u = m.addUnexpected(true, (i + 1) & 7, 3, 8, 0, OpFlags.TAGGED);
                TagMatcher.Unexpected t = m.takeUnexpected(true, (i + 1) & 7, 0, Fabrics.ADDR_UNSPEC);
                assertSame(u, t);
                m.free(t);
            }
        };
        cycle.run();
        long bytes = Allocations.bytesDuring(cycle);
        assertTrue(bytes < 1024, "allocated " + bytes);
    }

    @Test
    void aGrowingMatcherNeverRefusesAndReusesItsNodes() {
        TagMatcher m = new TagMatcher(false, 0);
        java.util.List<TagMatcher.Recv> posted = new java.util.ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            posted.add(post(m, "r" + i, true, i, 0, Fabrics.ADDR_UNSPEC));
        }
        assertEquals(1000, m.postedCount());
        for (int i = 0; i < 1000; i++) {
            assertNotNull(m.addUnexpected(false, 0, 7, 10, 0, 0), "never full");
        }
        assertEquals(Integer.MAX_VALUE, m.unexpectedRoom());
        TagMatcher.Recv r = m.matchPosted(true, 5, 0);
        assertSame(posted.get(5), r);
        m.free(r);
        assertSame(r, m.newRecv(), "a freed node is the next one handed out");
    }

    @Test
    void nextUnexpectedWalksOneKindInArrivalOrderClaimedOnesIncluded() {
        TagMatcher m = new TagMatcher(false, 0);
        TagMatcher.Unexpected a = m.addUnexpected(true, 1, 0, 10, 0, 0);
        TagMatcher.Unexpected untagged = m.addUnexpected(false, 0, 0, 10, 0, 0);
        TagMatcher.Unexpected b = m.addUnexpected(true, 2, 0, 10, 0, 0);
        m.claim(b, "claimer");
        assertSame(a, m.nextUnexpected(true, null));
        assertSame(b, m.nextUnexpected(true, a));
        assertNull(m.nextUnexpected(true, b));
        assertSame(untagged, m.nextUnexpected(false, null));
        assertNull(m.nextUnexpected(false, untagged));
    }
}
