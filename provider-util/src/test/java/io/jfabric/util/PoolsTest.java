package io.jfabric.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class PoolsTest {
    static final class Op {
        long value;
    }

    @Test
    void objectPoolIsBoundedAndReusesObjects() {
        AtomicInteger made = new AtomicInteger();
        ObjectPool<Op> pool = new ObjectPool<>(3, () -> {
            made.incrementAndGet();
            return new Op();
        });
        assertEquals(3, made.get());
        Op a = pool.acquire(), b = pool.acquire(), c = pool.acquire();
        assertNotNull(c);
        assertNull(pool.acquire(), "exhausted: the provider answers -EAGAIN");
        pool.release(b);
        assertSame(b, pool.acquire());
        pool.release(a);
        pool.release(b);
        pool.release(c);
        assertThrows(IllegalStateException.class, () -> pool.release(new Op()), "overflow detected");
        assertEquals(3, made.get(), "never creates more");
        long bytes = Allocations.bytesDuring(() -> {
            for (int i = 0; i < 100_000; i++) {
                Op o = pool.acquire();
                o.value = i;
                pool.release(o);
            }
        });
        assertTrue(bytes < 512, "allocated " + bytes);
    }

    @Test
    void concurrentPoolNeverHandsOutAnObjectTwice() throws Exception {
        ConcurrentObjectPool<Op> pool = new ConcurrentObjectPool<>(8, Op::new);
        Set<Op> all = new HashSet<>();
        AtomicInteger violations = new AtomicInteger();
        Thread[] ts = new Thread[4];
        for (int t = 0; t < ts.length; t++) {
            ts[t] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 50_000; i++) {
                    Op o = pool.acquire();
                    if (o == null) {
                        continue;
                    }
                    // An object held by two threads at once would see the other's mark.
                    if (o.value != 0) {
                        violations.incrementAndGet();
                    }
                    o.value = Thread.currentThread().threadId();
                    o.value = 0;
                    pool.release(o);
                }
            });
        }
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(0, violations.get());
        assertEquals(8, pool.available());
        for (int i = 0; i < 8; i++) {
            all.add(pool.acquire());
        }
        assertEquals(8, all.size());
        assertNull(pool.acquire());
    }

    @Test
    void indexedPoolMapsIdsAndRejectsStaleHandles() {
        IndexedPool<Op> pool = new IndexedPool<>(4, i -> new Op());
        int id = pool.acquire();
        assertTrue(id >= 0 && id < 4);
        long h = pool.handle(id);
        assertSame(pool.item(id), pool.resolve(h));
        assertTrue(pool.release(id));
        assertFalse(pool.release(id), "double release is refused");
        assertNull(pool.get(id));
        assertNull(pool.resolve(h), "released slot");
        int again = pool.acquire();
        assertEquals(id, again, "LIFO reuse");
        assertNull(pool.resolve(h), "a handle from the earlier use is stale");
        assertSame(pool.item(again), pool.resolve(pool.handle(again)));
        assertNull(pool.get(-1));
        assertNull(pool.get(99));
        for (int i = 0; i < 3; i++) {
            assertTrue(pool.acquire() >= 0);
        }
        assertEquals(-1, pool.acquire());
    }
}
