package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Once warm, an eager message costs no heap allocation in ofi_rxm and the tcp core underneath: the
 * send, the receive, progress and both completions are measured with the thread's allocation counter.
 */
@Timeout(60)
class RxmAllocationTest {
    /** com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes, reached reflectively (tests compile in the module). */
    static long allocated() {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            return (Long) Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getCurrentThreadAllocatedBytes").invoke(bean);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("no thread allocation counter in this JVM", e);
        }
    }

    @Test
    void eagerRoundTripsAllocateNothingOnceWarm() {
        try (RxmNode a = new RxmNode(); RxmNode b = new RxmNode(); Arena arena = Arena.ofConfined()) {
            long ab = a.insert(b.name());
            MemorySegment src = RxmNode.pattern(arena, 256, 1);
            MemorySegment dst = arena.allocate(256);
            CqEntry[] ea = CqEntry.array(8);
            CqEntry[] eb = CqEntry.array(8);
            Object sctx = "s";
            Object rctx = "r";
            long[] perPhase = new long[2];
            for (int phase = 0; phase < 2; phase++) {
                int n = phase == 0 ? 3000 : 2000;
                long before = allocated();
                for (int i = 0; i < n; i++) {
                    int rc = b.ep.trecv(dst, null, -1L, 3, 0, rctx);
                    assertEquals(0, rc);
                    while ((rc = a.ep.tsend(src, null, ab, 3, sctx)) == -Errno.EAGAIN) {
                        a.cq.read(ea, ea.length);
                        b.cq.read(eb, eb.length);
                    }
                    assertEquals(0, rc);
                    int gotA = 0;
                    int gotB = 0;
                    long end = System.nanoTime() + 10_000_000_000L;
                    while ((gotA == 0 || gotB == 0) && System.nanoTime() < end) {
                        int x = a.cq.read(ea, ea.length);
                        if (x > 0) {
                            gotA += x;
                        }
                        int y = b.cq.read(eb, eb.length);
                        if (y > 0) {
                            gotB += y;
                        }
                    }
                    if (gotA != 1 || gotB != 1) {
                        fail("completions " + gotA + "/" + gotB);
                    }
                }
                perPhase[phase] = (allocated() - before) / n;
            }
            System.out.println("ALLOC bytes per eager round trip: warm-up " + perPhase[0] + ", warm " + perPhase[1]);
            // a few bytes of slack for JIT/GC bookkeeping that lands on this thread; any object per message is at least 16 bytes
            assertTrue(perPhase[1] < 16, "a warm eager message allocated " + perPhase[1] + " bytes on the heap");
        }
    }
}
