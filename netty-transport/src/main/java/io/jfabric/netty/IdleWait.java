package io.jfabric.netty;

import java.util.concurrent.locks.LockSupport;

/**
 * How an event loop waits when none of its channels had work: a few spins (a reply often follows within
 * microseconds), then parks that grow from a microsecond to {@link #MAX_PARK_NANOS}, never past the loop's next
 * scheduled task. {@link JfabricIoHandler#wakeup()} unparks it.
 *
 * <p>The loop's channels each have their own CQ and no provider offers one wait object over many of them yet, so
 * this is a bounded park and not a block on the provider's wait object. It is the one place to change when
 * jfabric's wait sets (fi_wait over several CQs) arrive: block on the loop's wait set with the same deadline.
 */
final class IdleWait {
    static final int SPINS = 200;
    static final long MIN_PARK_NANOS = 1_000;
    static final long MAX_PARK_NANOS = 1_000_000;

    private int idleTurns;
    private long parkNanos = MIN_PARK_NANOS;

    /** The loop found work: start the next wait from spinning again. */
    void reset() {
        idleTurns = 0;
        parkNanos = MIN_PARK_NANOS;
    }

    /** Waits once, at most {@code maxNanos}; returns at once on a wakeup. */
    void idle(Object blocker, long maxNanos) {
        if (idleTurns < SPINS) {
            idleTurns++;
            Thread.onSpinWait();
            return;
        }
        long nanos = Math.min(parkNanos, maxNanos);
        if (nanos > 0) {
            LockSupport.parkNanos(blocker, nanos);
        }
        parkNanos = Math.min(parkNanos * 2, MAX_PARK_NANOS);
    }
}
