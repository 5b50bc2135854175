package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Once warm, a tagged send/receive round through the libfabric provider (post, post, read both CQs) allocates
 * nothing on the Java heap: contexts ride in native slots, entries are decoded in place.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HotPathAllocationTest {
    private static final int WARM = 30_000;
    private static final int MEASURED = 5_000;

    @Test
    void taggedRoundTripsAllocateNothingOnceWarm() {
        try (EndpointPair p = new EndpointPair("libfabric:shm", Caps.TAGGED); Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(64, 64);
            MemorySegment dst = arena.allocate(64, 64);
            MemoryRegion mrSrc = p.domain.registerMemory(src, Access.SEND, 31);
            MemoryRegion mrDst = p.domain.registerMemory(dst, Access.RECV, 32);
            Object sendCtx = new Object();
            Object recvCtx = new Object();
            CqEntry e = new CqEntry();
            rounds(p, src, dst, mrSrc, mrDst, sendCtx, recvCtx, e, WARM);
            long before = allocatedBytes();
            rounds(p, src, dst, mrSrc, mrDst, sendCtx, recvCtx, e, MEASURED);
            long allocated = allocatedBytes() - before;
            // a single object per round would be >= 16 * MEASURED bytes
            assertTrue(allocated < 16L * MEASURED / 4, allocated + " bytes allocated over " + MEASURED + " rounds");
            mrSrc.close();
            mrDst.close();
        }
    }

    /**
     * com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes, by reflection: the tests compile
     * inside the provider's module, which does not read java.management.
     */
    private static long allocatedBytes() {
        try {
            Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            java.lang.reflect.Method m = Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getCurrentThreadAllocatedBytes");
            return (long) m.invoke(mx);
        } catch (ReflectiveOperationException ex) {
            throw new AssertionError("this JVM cannot count allocated bytes", ex);
        }
    }

    private static void rounds(EndpointPair p, MemorySegment src, MemorySegment dst, MemoryRegion mrSrc,
                               MemoryRegion mrDst, Object sendCtx, Object recvCtx, CqEntry e, int n) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        for (int i = 0; i < n; i++) {
            assertEquals(0, p.b.trecv(dst, mrDst, p.addrA, i, 0, recvCtx));
            boolean posted = false;
            boolean sent = false;
            boolean received = false;
            while (!(sent && received)) {
                if (!posted) {
                    int rc = p.a.tsend(src, mrSrc, p.addrB, i, sendCtx);
                    posted = rc == 0;
                    if (rc != 0 && rc != -Errno.EAGAIN) {
                        throw new AssertionError("fi_tsend returned " + Errno.name(rc));
                    }
                }
                // both sides are polled: shm makes progress for a receiver only in its own CQ reads
                if (p.cqA.read(e) == 1) {
                    assertSame(sendCtx, e.context);
                    sent = true;
                }
                if (p.cqB.read(e) == 1) {
                    assertSame(recvCtx, e.context);
                    assertEquals(i, e.tag);
                    received = true;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("round " + i + " of " + n + " did not complete in time");
                }
            }
        }
    }
}
