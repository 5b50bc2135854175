package io.jfabric.util;

import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The CQ that writes and reads under its provider's own lock (shm's domain lock at FI_THREAD_SAFE). */
@Timeout(60)
class GuardedCompletionQueueTest {

    @Test
    void aReadHoldsTheGuardAcrossItsProgressCallAndTheWritesInsideIt() {
        ReentrantLock guard = new ReentrantLock();
        AtomicBoolean heldInProgress = new AtomicBoolean();
        UtilCompletionQueue[] q = new UtilCompletionQueue[1];
        q[0] = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 8), () -> {
            heldInProgress.set(guard.isHeldByCurrentThread());
            q[0].write("ctx", 0, 0, 0, 0, 0);
            // the write did not take the guard a second time
            assertEquals(1, guard.getHoldCount());
            return 1;
        }, guard, true);
        CqEntry e = new CqEntry();
        assertEquals(1, q[0].read(e));
        assertEquals("ctx", e.context);
        assertTrue(heldInProgress.get(), "progress ran under the guard");
        assertFalse(guard.isHeldByCurrentThread(), "the read released the guard");
    }

    @Test
    void aWriteFromAThreadWithoutTheGuardWaitsForItsHolder() throws Exception {
        ReentrantLock guard = new ReentrantLock();
        UtilCompletionQueue q = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 8), ProgressHook.NONE, guard,
                false);
        CountDownLatch written = new CountDownLatch(1);
        guard.lock();
        try {
            Thread.ofPlatform().start(() -> {
                q.write("late", 0, 0, 0, 0, 0);
                written.countDown();
            });
            assertFalse(written.await(200, TimeUnit.MILLISECONDS), "the write went ahead while the guard was held");
        } finally {
            guard.unlock();
        }
        assertTrue(written.await(10, TimeUnit.SECONDS));
        CqEntry e = new CqEntry();
        assertEquals(1, q.read(e));
        assertEquals("late", e.context);
    }

    @Test
    void concurrentWritersAndReadersLoseAndRepeatNothing() throws Exception {
        ReentrantLock guard = new ReentrantLock();
        int writers = 3;
        int readers = 3;
        int perWriter = 20_000;
        UtilCompletionQueue q = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 64), () -> 0, guard, true);
        BitSet seen = new BitSet(writers * perWriter);
        AtomicInteger read = new AtomicInteger();
        AtomicInteger repeated = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int base = w * perWriter;
            boolean underGuard = w == 0; // as a provider's progress writes; the others as error paths might
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perWriter; i++) {
                    Integer ctx = base + i;
                    for (;;) {
                        if (underGuard) {
                            guard.lock();
                        }
                        try {
                            // reserve first, as providers do under FI_RM_ENABLED: a full ring is the overrun
                            // this test is not about
                            if (q.tryReserve()) {
                                assertEquals(0, q.writeFrom(true, ctx, 0, 0, 0, 0, 0, Fabrics.ADDR_NOTAVAIL));
                                break;
                            }
                        } finally {
                            if (underGuard) {
                                guard.unlock();
                            }
                        }
                        Thread.onSpinWait();
                    }
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        for (int r = 0; r < readers; r++) {
            threads.add(Thread.ofPlatform().start(() -> {
                CqEntry[] batch = CqEntry.array(8);
                while (read.get() < writers * perWriter && System.nanoTime() < deadline) {
                    int n = q.read(batch, batch.length);
                    for (int i = 0; i < n; i++) {
                        int c = (Integer) batch[i].context;
                        synchronized (seen) {
                            if (seen.get(c)) {
                                repeated.incrementAndGet();
                            }
                            seen.set(c);
                        }
                    }
                    if (n > 0) {
                        read.addAndGet(n);
                    } else {
                        assertEquals(-Errno.EAGAIN, n);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(50));
        }
        assertEquals(0, repeated.get(), "completions read twice");
        assertEquals(writers * perWriter, seen.cardinality(), "completions lost");
        assertFalse(q.isOverrun());
    }
}
