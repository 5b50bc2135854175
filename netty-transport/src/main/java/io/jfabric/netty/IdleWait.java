package io.jfabric.netty;

import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricObject;
import io.jfabric.WaitAttr;
import io.jfabric.WaitSet;
import io.netty.channel.IoHandlerContext;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * How an event loop waits when none of its channels had work: it spins for {@link #SPIN_NANOS} (a reply often
 * follows within microseconds), then yields the processor until it has been idle for {@link #YIELD_NANOS}, and
 * only then blocks on the loop's {@link WaitSet}, which every channel's CQ joins (fi_trywait, then fi_wait until the
 * loop's next scheduled task), so that an idle loop sleeps on the providers' own event sources and wakes as soon as
 * a completion arrives. {@link #wakeup} wakes it from other threads.
 *
 * <p>Why yield before blocking: waking a blocked thread costs tens of microseconds on a virtual machine (the futex
 * wake, an interrupt to the halted vCPU, the scheduler), about what a whole Netty epoll echo takes, while a yield
 * costs under a microsecond and keeps the loop polling. A spin alone would hold the processor: on a machine with
 * fewer cores than busy threads the peer loop that must answer often waits on the same CPU, and a spinning loop
 * keeps it off for its whole time slice, whereas a yield hands it the CPU at once. Every block that ends starts
 * the spin and yield again, since whatever ended it (a message, a task) is often followed by more.
 *
 * <p>Providers whose CQs refuse FI_WAIT_SET (ENOSYS; every provider in this tree accepts it), or do not wake it
 * promptly ({@link LoopDomain#PARKS} names them), do not join the set; once a loop has such a channel it falls back, for the
 * rest of its life, to parks that grow from a microsecond to {@link #MAX_PARK_NANOS} after the spin and yield,
 * since a block on the set would not see that channel's completions.
 */
final class IdleWait implements AutoCloseable {
    /**
     * How long an idle loop spins before it yields (system property {@code jfabric.netty.spinNanos}): short, since a
     * yield with nobody else to run returns at once and polls as often.
     */
    static final long SPIN_NANOS = Long.getLong("jfabric.netty.spinNanos", 2_000);
    /**
     * How long, counted from the first idle turn, a loop spins and yields before it blocks (system property
     * {@code jfabric.netty.yieldNanos}; 0 blocks at once): about one wake-up of a blocked thread here.
     */
    static final long YIELD_NANOS = Long.getLong("jfabric.netty.yieldNanos", 50_000);
    static final long MIN_PARK_NANOS = 1_000;
    static final long MAX_PARK_NANOS = 1_000_000;
    static final int RETRY_AWAIT_MILLIS = 1;
    private static final long NANOS_PER_MILLI = 1_000_000;

    /** When the current idle stretch began (its first idle turn), or {@link #NOT_IDLE}. */
    private long idleSince = NOT_IDLE;
    private static final long NOT_IDLE = Long.MIN_VALUE;
    private long parkNanos = MIN_PARK_NANOS;
    /** Opened with the loop's first domain; volatile because {@link #wakeup} reads it from other threads. */
    private volatile WaitSet set;
    private Fabric setFabric;
    private FabricObject[] setOnly;
    private boolean parkOnly;
    /** A provider refused an operation (EAGAIN) that the loop's next turn retries: the next wait is short. */
    private boolean retrySoon;
    /**
     * Set while the loop blocks or parks (and just before, as it looks for tasks a last time): only then must a
     * {@link #wakeup} reach it. A loop that spins or yields runs the tasks queued for it on its next turn, so a
     * wake-up then would cost the waker the set's lock and the provider's wake (an eventfd write for tcp) for
     * nothing, and gRPC hands each message to the loop from its own threads.
     */
    private final AtomicBoolean asleep = new AtomicBoolean();

    /** The loop's wait set, opened through {@code fabric} on first use; null once the loop parks instead. */
    WaitSet set(Fabric fabric) {
        if (parkOnly) {
            return null;
        }
        WaitSet s = set;
        if (s == null) {
            try {
                s = fabric.openWait(WaitAttr.defaults());
            } catch (FabricException e) {
                // no wait sets where this fabric comes from (ENOSYS): park as before
                parkOnly = true;
                return null;
            }
            setFabric = fabric;
            setOnly = new FabricObject[] {s};
            set = s;
        }
        return s;
    }

    /** A channel's CQ could not join the set: from now on the loop parks. */
    void parkFromNowOn() {
        parkOnly = true;
    }

    /** An operation was refused (EAGAIN); its retry is due on the next turn, which no completion announces. */
    void retrySoon() {
        retrySoon = true;
    }

    /** The loop found work: start the next wait from spinning again. */
    void reset() {
        idleSince = NOT_IDLE;
        parkNanos = MIN_PARK_NANOS;
    }

    /**
     * Waits once, at most {@code maxNanos}; returns at once on a {@link #wakeup}. {@code now} is the loop's
     * {@link System#nanoTime} of this turn; the loop's {@code context} says whether it has no task to run, asked
     * again after the loop has said it is going to sleep, so that a task queued before a skipped wake-up is seen.
     */
    void idle(Object blocker, long now, long maxNanos, IoHandlerContext context) {
        if (idleSince == NOT_IDLE) {
            idleSince = now;
        }
        long idleFor = now - idleSince;
        if (idleFor < SPIN_NANOS) {
            Thread.onSpinWait();
            return;
        }
        if (idleFor < YIELD_NANOS) {
            Thread.yield();
            return;
        }
        asleep.set(true); // before the tasks are looked at again: a waker that finds it clear queued its task first
        try {
            if (!context.canBlock()) {
                return;
            }
            WaitSet s = set;
            if (s != null && !parkOnly) {
                if (block(s, maxNanos)) {
                    idleSince = NOT_IDLE; // woken: spin and yield again before the next block
                }
                return;
            }
            long nanos = Math.min(parkNanos, maxNanos);
            if (nanos > 0) {
                LockSupport.parkNanos(blocker, nanos);
            }
            parkNanos = Math.min(parkNanos * 2, MAX_PARK_NANOS);
        } finally {
            asleep.set(false);
        }
    }

    /**
     * fi_wait counts milliseconds: a deadline under one is met by yielding (the loop's next turn comes as soon as
     * nobody else wants the processor). The wait lasts until a completion, a wakeup or the loop's next task; only
     * after a refused operation (EAGAIN: ofi_rxm sends while its connection is set up, which ends in no completion)
     * does it last at most {@link #RETRY_AWAIT_MILLIS}, so the retry comes soon.
     *
     * @return whether the loop slept (or found work in fi_trywait), rather than yielding for a short deadline
     */
    private boolean block(WaitSet s, long maxNanos) {
        if (maxNanos < NANOS_PER_MILLI) {
            Thread.yield();
            return false;
        }
        long millis = Math.min(maxNanos / NANOS_PER_MILLI, retrySoon ? RETRY_AWAIT_MILLIS : Integer.MAX_VALUE);
        retrySoon = false;
        if (setFabric.trywait(setOnly) == 0) {
            s.await((int) millis);
        }
        return true;
    }

    /**
     * Wakes the loop's thread {@code loop} from another thread, whichever way it waits, if it is asleep or about to
     * be; the first waker of a sleep does it, the others find the flag clear.
     */
    void wakeup(Thread loop) {
        if (!asleep.compareAndExchange(true, false)) {
            return;
        }
        WaitSet s = set;
        if (s != null) {
            s.wakeup();
        }
        LockSupport.unpark(loop);
    }

    @Override
    public void close() {
        WaitSet s = set;
        if (s != null) {
            s.close();
        }
    }
}
