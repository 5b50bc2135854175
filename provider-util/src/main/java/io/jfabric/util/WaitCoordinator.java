package io.jfabric.util;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The threads blocked on one queue or wait set, the waiting half of libfabric's {@code ofi_cq_sreadfrom} and
 * util wait objects. Leader and followers: under manual progress one waiter, the leader, drives progress and
 * sleeps on the provider's event source ({@link ProgressHook#block}); the others park on a
 * {@link ParkedThreads} list until a writer publishes an event ({@link #wake}), the leader
 * leaves and hands over, or their time is up. So ten thousand blocked readers cost one sleeper on the
 * selector or futex, not ten thousand.
 *
 * <p>Nothing here blocks a virtual thread's carrier: waits use java.util.concurrent locks (which park), and
 * a virtual leader whose hook would block natively ({@link ProgressHook#blockParksVirtualThreads()} false)
 * hands the block to a platform thread ({@link NativeSleeper}) and parks. A hook that cannot block at all
 * ({@link ProgressHook#canBlock()} false) is progressed by the leader between parks of {@code pollNanos}.
 *
 * <p>A writer publishes its event with a volatile write and then calls {@link #wake}, which reads the
 * waiter count (volatile); a waiter counts itself in and then checks readiness, so one of the two sees the
 * other (no lost wake-up) and a writer with nobody waiting pays one volatile read. Waits and wakes allocate
 * nothing.
 */
public final class WaitCoordinator {
    /** What a waiter waits for; checked without driving progress. */
    public interface Readiness {
        /** True when the waiter should return to its caller. */
        boolean ready();
    }

    /** A readiness that only a {@link #wake} ends: for waiters whose condition is their own (a threshold). */
    public static final Readiness WOKEN_ONLY = () -> false;

    private final ReentrantLock lock = new ReentrantLock();
    private final ParkedThreads parked = new ParkedThreads(lock);
    private final AtomicInteger waiters = new AtomicInteger();
    private final boolean wakeEveryone;
    private final long pollNanos;
    /** Counts wakes; a waiter returns when it moved since the caller read it. Written under the lock. */
    private volatile long epoch;
    /** Guarded by the lock. */
    private boolean leaderTaken;
    private volatile boolean leaderSleeping;
    private volatile NativeSleeper sleeper;

    /**
     * @param wakeEveryone wake every waiter per event (waiters with different conditions, such as counter
     *                     thresholds), instead of one (interchangeable readers of one queue)
     * @param pollNanos    the leader's park between progress calls when the hook cannot block
     */
    public WaitCoordinator(boolean wakeEveryone, long pollNanos) {
        this.wakeEveryone = wakeEveryone;
        this.pollNanos = pollNanos;
    }

    /** Read before checking the condition; pass to {@link #await} so a wake in between is not missed. */
    public long epoch() {
        return epoch;
    }

    /** Whether a thread waits now. */
    public boolean hasWaiters() {
        return waiters.get() != 0;
    }

    /** Writer side, after publishing an event: wakes a waiter (all, if so built) and ends the leader's sleep. */
    public void wake(ProgressHook hook) {
        if (waiters.get() == 0) {
            return;
        }
        Thread woken = null;
        lock.lock();
        try {
            epoch++;
            if (wakeEveryone) {
                parked.signalAll();
            } else {
                woken = parked.takeFirst();
            }
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(woken); // after the unlock: the woken thread must not find the lock held
        if (leaderSleeping) {
            hook.wakeup();
        }
    }

    /** Wakes every waiter, whether or not one is counted yet (a signal, a close): their next check returns. */
    public void wakeAll(ProgressHook hook) {
        lock.lock();
        try {
            epoch++;
            parked.signalAll();
        } finally {
            lock.unlock();
        }
        hook.wakeup();
    }

    /**
     * Blocks until {@code readiness} holds, a {@link #wake} after {@code epochSeen}, or {@code nanos} pass.
     * Call it after driving progress (a read does) and loop: the leader among the waiters returns after one
     * sleep in {@code hook}, so that its caller drives progress again, and the next waiter leads meanwhile.
     *
     * @return false if the thread was interrupted (its status stays set), else true
     */
    public boolean await(Readiness readiness, ProgressHook hook, long epochSeen, long nanos) {
        long start = System.nanoTime();
        boolean manual = hook != ProgressHook.NONE;
        boolean leading = false;
        waiters.incrementAndGet();
        try {
            for (;;) {
                if (readiness.ready() || epoch != epochSeen) {
                    return true;
                }
                long remaining = nanos - (System.nanoTime() - start);
                if (remaining <= 0) {
                    return true;
                }
                if (leading) {
                    // one sleep, then back to the caller, whose read drives progress before it waits again
                    return sleep(readiness, hook, epochSeen, remaining);
                }
                lock.lock();
                if (epoch != epochSeen) {
                    lock.unlock();
                    return true;
                }
                if (manual && !leaderTaken) {
                    leaderTaken = true;
                    leading = true;
                    lock.unlock();
                    continue;
                }
                parked.awaitNanos(remaining); // releases the lock
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            waiters.decrementAndGet();
            if (leading) {
                handOver();
            }
        }
    }

    /** The leader's sleep: on the event source, or a park between progress calls. False if interrupted. */
    private boolean sleep(Readiness readiness, ProgressHook hook, long epochSeen, long remaining)
            throws InterruptedException {
        if (!hook.canBlock()) {
            lock.lock();
            if (epoch == epochSeen) {
                parked.awaitNanos(Math.min(remaining, pollNanos)); // releases the lock
            } else {
                lock.unlock();
            }
            return true;
        }
        leaderSleeping = true;
        try {
            // re-check after announcing the sleep: a writer that missed the flag published before this read
            if (readiness.ready() || epoch != epochSeen) {
                return true;
            }
            if (hook.blockParksVirtualThreads() || !Thread.currentThread().isVirtual()) {
                hook.block(remaining);
            } else {
                nativeSleeper().sleep(hook, remaining);
            }
        } finally {
            leaderSleeping = false;
        }
        return !Thread.currentThread().isInterrupted();
    }

    private NativeSleeper nativeSleeper() {
        NativeSleeper s = sleeper;
        if (s == null) {
            lock.lock();
            try {
                if (sleeper == null) {
                    sleeper = new NativeSleeper();
                }
                s = sleeper;
            } finally {
                lock.unlock();
            }
        }
        return s;
    }

    /** The leader leaves: another waiter, if any, takes over the progress and the sleep. */
    private void handOver() {
        lock.lock();
        try {
            leaderTaken = false;
            if (waiters.get() != 0) {
                parked.signal();
            }
        } finally {
            lock.unlock();
        }
    }
}
