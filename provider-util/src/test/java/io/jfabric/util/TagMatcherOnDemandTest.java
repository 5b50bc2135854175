package io.jfabric.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Fabrics;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pieces a matcher per connection needs (tcp keeps one per connection): nodes built on first use and
 * never beyond the capacity, and a look for a matching receive that leaves it posted.
 */
@Timeout(30)
class TagMatcherOnDemandTest {

    @Test
    void aPoolBuildsOnDemandUpToItsCapacityAndReusesWhatCameBack() {
        AtomicInteger built = new AtomicInteger();
        ObjectPool<Object> pool = new ObjectPool<>(3, 1, () -> {
            built.incrementAndGet();
            return new Object();
        });
        assertEquals(1, built.get(), "only the prebuilt object exists up front");
        assertEquals(3, pool.available());
        Object a = pool.acquire();
        Object b = pool.acquire();
        Object c = pool.acquire();
        assertNotNull(c);
        assertNull(pool.acquire(), "the capacity bounds the pool");
        assertEquals(3, built.get());
        pool.release(b);
        assertSame(b, pool.acquire(), "a released object is reused, not a new one built");
        assertEquals(3, built.get());
        pool.release(a);
        assertEquals(1, pool.available());
    }

    @Test
    void hasPostedMatchLooksWithoutTaking() {
        TagMatcher m = TagMatcher.onDemand(2, 1, false, 0);
        TagMatcher.Recv r = m.newRecv();
        r.tagged = true;
        r.tag = 0x500;
        r.ignore = 0xf;
        r.context = "t";
        m.post(r);
        assertTrue(m.hasPostedMatch(true, 0x50a, Fabrics.ADDR_NOTAVAIL));
        assertFalse(m.hasPostedMatch(true, 0x51a, Fabrics.ADDR_NOTAVAIL));
        assertFalse(m.hasPostedMatch(false, 0x50a, Fabrics.ADDR_NOTAVAIL), "the untagged queue is apart");
        assertEquals(1, m.postedCount(), "looking took nothing");
        assertSame(r, m.matchPosted(true, 0x50a, Fabrics.ADDR_NOTAVAIL));
        m.free(r);
        assertNotNull(m.newRecv());
        assertNotNull(m.newRecv());
        assertNull(m.newRecv(), "maxPosted bounds the nodes built on demand");
    }
}
