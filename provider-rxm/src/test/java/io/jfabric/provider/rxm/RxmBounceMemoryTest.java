package io.jfabric.provider.rxm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A closed endpoint gives its bounce buffers' native memory back at once, not at the next garbage collection: a
 * process that opens and closes many endpoints (netty-transport opens one per channel) must not run out of direct
 * memory while its heap is quiet. Memory from a GC-managed arena ({@code Arena.ofAuto()}) is reserved against
 * -XX:MaxDirectMemorySize and shows in the JVM's "direct" buffer pool until a GC frees it; the slabs come from the
 * endpoint's own arena, freed by its close, so opening and closing endpoints does not grow that pool by slabs.
 */
@Timeout(60)
class RxmBounceMemoryTest {
    static final int PAIRS = 10;
    /** A slab: 32 bounce buffers of at least 16 KiB (a pair over tcp takes three of 514 KiB). */
    static final long SLAB = BounceSlabs.PER_SLAB * 16_384L;

    @Test
    void closedEndpointsLeaveNoBounceSlabsBehind() {
        connectedPair(); // the first pair also loads classes and fills static tables
        long before = directMemoryUsed();
        for (int i = 0; i < PAIRS; i++) {
            connectedPair();
        }
        long grown = directMemoryUsed() - before;
        // the pairs took 30 slabs; what may stay is the tcp core's per-socket KiB that a GC frees (36 KiB per pair
        // here, so 360 KiB), less than one slab (the arena per slab as before left 1.6 MiB after a GC)
        assertTrue(grown < SLAB, PAIRS + " pairs opened and closed left " + grown
                + " B reserved in the direct pool (a bounce slab is " + SLAB + " B)");
    }

    /** Opens two endpoints, sends a message from one to the other (tx and rx bounce buffers), closes both. */
    private static void connectedPair() {
        try (Arena arena = Arena.ofConfined(); RxmNode a = new RxmNode(); RxmNode b = new RxmNode()) {
            long aToB = a.insert(b.name());
            long bToA = b.insert(a.name());
            MemorySegment src = RxmNode.pattern(arena, 1000, 3);
            MemorySegment dst = arena.allocate(1000);
            Object r = new Object();
            assertEquals(0, b.ep.recv(dst, null, bToA, r));
            assertEquals(0, RxmNode.retry(() -> a.ep.send(src, null, aToB, null), 10_000, a, b));
            assertTrue(RxmNode.await(() -> b.completionFor(r) != null, 10_000, a, b), () -> a + "\n" + b);
            assertEquals(-1, src.mismatch(dst));
        }
    }

    /**
     * The "direct" BufferPoolMXBean's memory used, reached reflectively: the tests compile inside the module, which
     * does not read java.management (as RxmAllocationTest).
     */
    private static long directMemoryUsed() {
        try {
            Class<?> pool = Class.forName("java.lang.management.BufferPoolMXBean");
            Object beans = Class.forName("java.lang.management.ManagementFactory")
                    .getMethod("getPlatformMXBeans", Class.class).invoke(null, pool);
            for (Object b : (java.util.List<?>) beans) {
                if ("direct".equals(pool.getMethod("getName").invoke(b))) {
                    return (Long) pool.getMethod("getMemoryUsed").invoke(b);
                }
            }
            throw new IllegalStateException("no direct buffer pool");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
