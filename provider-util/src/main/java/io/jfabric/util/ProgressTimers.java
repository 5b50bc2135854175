package io.jfabric.util;

import org.agrona.DeadlineTimerWheel;

import java.util.concurrent.TimeUnit;

/**
 * Timers driven by progress (connection-setup timeouts, retransmits, rendezvous expiry), the role of
 * libfabric's per-provider timeout lists, on Agrona's {@link DeadlineTimerWheel}: add the instance to
 * the {@link ProgressEngine} as a task and it fires due timers on every progress pass. Deadlines are
 * {@link System#nanoTime()} values; resolution is {@code tickNanos} (timers fire up to one tick late,
 * never early). Scheduling and cancelling do not allocate once the wheel has grown to the peak
 * number of timers. Not thread-safe: use it from the progress context only.
 */
public final class ProgressTimers implements ProgressEngine.Task {
    /** Called when a timer expires. */
    @FunctionalInterface
    public interface Handler {
        /** @return true when handled; false to retry on the next pass (e.g. a CQ was full) */
        boolean onTimer(long timerId);
    }

    private final DeadlineTimerWheel wheel;
    private final Handler handler;
    private final DeadlineTimerWheel.TimerHandler adapter;

    /**
     * @param handler   receives expiries
     * @param tickNanos resolution (rounded up to a power of two by the wheel), e.g. 1 ms
     */
    public ProgressTimers(Handler handler, long tickNanos) {
        this.handler = handler;
        long tick = Long.highestOneBit(Math.max(1024, tickNanos));
        if (tick < tickNanos) {
            tick <<= 1;
        }
        this.wheel = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, System.nanoTime(), tick, 512);
        this.adapter = (unit, now, timerId) -> this.handler.onTimer(timerId);
    }

    /** Schedules a timer {@code delayNanos} from now; returns its id. */
    public long scheduleIn(long delayNanos) {
        return wheel.scheduleTimer(System.nanoTime() + Math.max(0, delayNanos));
    }

    /** Schedules a timer at an absolute {@link System#nanoTime()} deadline; returns its id. */
    public long scheduleAt(long deadlineNanos) {
        return wheel.scheduleTimer(deadlineNanos);
    }

    /** Cancels a timer; false if it already fired or never existed. */
    public boolean cancel(long timerId) {
        return wheel.cancelTimer(timerId);
    }

    /** Timers pending. */
    public long pending() {
        return wheel.timerCount();
    }

    /** Fires due timers (at most 64 per pass, so one pass stays short). */
    @Override
    public int doWork() {
        if (wheel.timerCount() == 0) {
            return 0;
        }
        return wheel.poll(System.nanoTime(), adapter, 64);
    }
}
