package io.jfabric.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
}
