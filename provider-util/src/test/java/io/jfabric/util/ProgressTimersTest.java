package io.jfabric.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class ProgressTimersTest {

    @Test
    void timersFireAfterTheirDeadlineAndCancelledOnesNever() {
        List<Long> fired = new ArrayList<>();
        ProgressTimers timers = new ProgressTimers(id -> fired.add(id), TimeUnit.MILLISECONDS.toNanos(1));
        ProgressEngine engine = ProgressEngine.manual("t-timers");
        engine.add(timers);
        long start = System.nanoTime();
        long soon = timers.scheduleIn(TimeUnit.MILLISECONDS.toNanos(20));
        long later = timers.scheduleIn(TimeUnit.MILLISECONDS.toNanos(60));
        long cancelled = timers.scheduleIn(TimeUnit.MILLISECONDS.toNanos(30));
        assertTrue(timers.cancel(cancelled));
        assertEquals(2, timers.pending());
        engine.runOnce();
        assertTrue(fired.isEmpty(), "nothing is due yet");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (fired.size() < 2 && System.nanoTime() < deadline) {
            engine.runOnce();
            UtilCompletionQueueTest.sleep(2);
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(List.of(soon, later), fired);
        assertTrue(elapsedMs >= 60, "never early: " + elapsedMs);
        assertFalse(timers.cancel(soon), "already fired");
        assertEquals(0, timers.pending());
    }

    @Test
    void aHandlerThatDeclinesIsRetried() {
        int[] calls = {0};
        ProgressTimers timers = new ProgressTimers(id -> ++calls[0] >= 3, TimeUnit.MILLISECONDS.toNanos(1));
        timers.scheduleIn(0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (timers.pending() > 0 && System.nanoTime() < deadline) {
            timers.doWork();
            UtilCompletionQueueTest.sleep(2);
        }
        assertEquals(3, calls[0]);
        assertEquals(0, timers.pending());
    }
}
