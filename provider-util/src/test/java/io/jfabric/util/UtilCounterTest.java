package io.jfabric.util;

import io.jfabric.CounterAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.WaitObj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class UtilCounterTest {

    @Test
    void readAddSetAndErrors() {
        AtomicInteger progress = new AtomicInteger();
        var c = new UtilCounter(CounterAttr.defaults(), () -> {
            progress.incrementAndGet();
            return 0;
        });
        assertEquals(0, c.read());
        c.add(5);
        c.increment();
        assertEquals(6, c.read());
        c.set(2);
        assertEquals(2, c.read());
        c.addError(3);
        c.incrementError();
        assertEquals(4, c.readError());
        c.setError(0);
        assertEquals(0, c.readError());
        assertEquals(3, progress.get(), "each read drives progress");
    }

    @Test
    void awaitReturnsWhenThresholdReachedFromAnotherThread() throws Exception {
        var c = new UtilCounter(CounterAttr.defaults(), ProgressHook.NONE);
        Thread t = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 3; i++) {
                UtilCompletionQueueTest.sleep(20);
                c.increment();
            }
        });
        long t0 = System.nanoTime();
        assertEquals(0, c.await(3, 10_000));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < 5000);
        assertEquals(3, c.read());
        t.join();
    }

    @Test
    void awaitTimesOutAndReportsErrors() throws Exception {
        var c = new UtilCounter(CounterAttr.defaults(), ProgressHook.NONE);
        long t0 = System.nanoTime();
        assertEquals(-Errno.ETIMEDOUT, c.await(1, 60));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) >= 55);
        Thread t = Thread.ofPlatform().start(() -> {
            UtilCompletionQueueTest.sleep(30);
            c.incrementError();
        });
        assertEquals(-Errno.EAVAIL, c.await(1, 10_000), "an error while waiting ends the wait");
        t.join();
        assertEquals(0, c.await(0, 0), "threshold already reached");
    }

    @Test
    void awaitDrivesManualProgress() {
        AtomicInteger calls = new AtomicInteger();
        UtilCounter[] self = new UtilCounter[1];
        self[0] = new UtilCounter(CounterAttr.defaults(), () -> {
            if (calls.incrementAndGet() % 3 == 0) {
                self[0].increment();
            }
            return 0;
        }, TimeUnit.MILLISECONDS.toNanos(1));
        assertEquals(0, self[0].await(4, 10_000));
        assertTrue(calls.get() >= 12);
    }

    @Test
    void waitNoneAndBadWaitObjects() {
        CounterAttr a = CounterAttr.defaults();
        a.waitObj = WaitObj.NONE;
        assertEquals(-Errno.ENOSYS, new UtilCounter(a, null).await(1, 10));
        CounterAttr b = CounterAttr.defaults();
        b.waitObj = WaitObj.POLLFD;
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> new UtilCounter(b, null)).errno());
    }
}
