package io.jfabric.provider.shm;

import io.jfabric.provider.shm.ffi.Futex;
import io.jfabric.provider.shm.ffi.FutexWaitv;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** futex_waitv over two words: a wake on either ends the sleep and names it; a changed word or the timeout end it too. */
@Timeout(30)
class FutexWaitvTest {
    @Test
    void aWakeOnEitherWordEndsTheSleepAndTheTimeoutAndAChangedWordToo() throws Exception {
        Assumptions.assumeTrue(FutexWaitv.supported(), "this kernel has no futex_waitv (Linux 5.16+)");
        try (Arena arena = Arena.ofShared(); FutexWaitv w = new FutexWaitv()) {
            MemorySegment words = arena.allocate(8, 4);
            words.set(ValueLayout.JAVA_INT, 0, 1);
            words.set(ValueLayout.JAVA_INT, 4, 1);
            w.set(0, words.address(), 1);
            w.set(1, words.address() + 4, 1);

            long t0 = System.nanoTime();
            assertEquals(-1, w.await(2, TimeUnit.MILLISECONDS.toNanos(50)), "nobody wakes: timeout");
            long took = System.nanoTime() - t0;
            assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(40) && took < TimeUnit.SECONDS.toNanos(5),
                    "the relative timeout became the right absolute one: slept " + took / 1000 + " us");

            CompletableFuture<Integer> sleeper = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> sleeper.complete(w.await(2, TimeUnit.SECONDS.toNanos(10))));
            int woken = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!sleeper.isDone() && System.nanoTime() < deadline) {
                woken += Futex.wake(words.address() + 4, 1); // 0 until the sleeper is in the kernel
                Thread.sleep(1);
            }
            assertEquals(1, sleeper.get(1, TimeUnit.SECONDS), "woken on the second word");
            assertEquals(1, woken, "one sleeper was woken");

            words.set(ValueLayout.JAVA_INT, 0, 0);
            long t1 = System.nanoTime();
            assertEquals(-1, w.await(2, TimeUnit.SECONDS.toNanos(10)), "a word that already changed");
            assertTrue(System.nanoTime() - t1 < TimeUnit.SECONDS.toNanos(5), "a changed word ends the wait at once");
        }
    }
}
