package io.jfabric.provider.shm;

import io.jfabric.provider.shm.ffi.Futex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NativeCallsTest {

    @Test
    void futexTimesOutAndRefusesAChangedWord() {
        try (Arena a = Arena.ofShared(); Futex f = new Futex()) {
            MemorySegment word = a.allocate(4, 4);
            word.set(ValueLayout.JAVA_INT, 0, 1);
            long t0 = System.nanoTime();
            assertFalse(f.await(word.address(), 1, 20_000_000), "nobody wakes it");
            assertTrue(System.nanoTime() - t0 >= 15_000_000, "the wait lasted its timeout");
            long t1 = System.nanoTime();
            assertFalse(f.await(word.address(), 0, 5_000_000_000L), "a word that already differs");
            assertTrue(System.nanoTime() - t1 < 2_000_000_000L, "a differing word ends the wait at once");
        }
    }

    @Test
    void futexWakeReachesASleeperQuickly() throws Exception {
        try (Arena a = Arena.ofShared()) {
            MemorySegment word = a.allocate(4, 4);
            AtomicLong wokeAt = new AtomicLong();
            CountDownLatch sleeping = new CountDownLatch(1);
            Thread sleeper = new Thread(() -> {
                try (Futex f = new Futex()) {
                    word.set(ValueLayout.JAVA_INT, 0, 1);
                    sleeping.countDown();
                    // a signal ends a wait too; the word says whether the waker came
                    while (!f.await(word.address(), 1, 5_000_000_000L) && word.get(ValueLayout.JAVA_INT, 0) == 1) {
                        Thread.onSpinWait();
                    }
                    wokeAt.set(System.nanoTime());
                }
            });
            sleeper.start();
            sleeping.await();
            Thread.sleep(50); // let it really sleep in the kernel
            long t0 = System.nanoTime();
            word.set(ValueLayout.JAVA_INT, 0, 0);
            int woken = Futex.wake(word.address(), 1);
            sleeper.join();
            assertTrue(woken <= 1);
            long micros = (wokeAt.get() - t0) / 1000;
            assertTrue(micros < 1_000_000, "woke after " + micros + " us");
            System.out.println("futex wake-to-run latency: " + micros + " us");
        }
    }

    @Test
    void processIdentityParsesStatAndDetectsDeath() throws Exception {
        assertEquals(12345L, ProcessIdentity.parseStartTime(
                "42 (a) b) c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 12345 1000 10"));
        assertEquals(ProcessIdentity.GONE, ProcessIdentity.parseStartTime("garbage"));
        assertEquals(ProcessIdentity.GONE, ProcessIdentity.parseStartTime(
                "42 (a) Z 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 12345 1000 10"));
        assertTrue(ProcessIdentity.selfStartTime() > 0);
        assertTrue(ProcessIdentity.isAlive(ProcessIdentity.selfPid(), ProcessIdentity.selfStartTime()));
        assertEquals(false, ProcessIdentity.isAlive(ProcessIdentity.selfPid(), ProcessIdentity.selfStartTime() + 1));
        assertEquals(false, ProcessIdentity.isAlive(ShmRegionTest.deadPid(), 1));
    }
}
