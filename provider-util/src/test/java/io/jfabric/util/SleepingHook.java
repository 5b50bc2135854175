package io.jfabric.util;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A manual progress hook for the wait tests that sleeps by parking (as a selector or futex sleeps) and is ended by
 * unpark. With {@code platformOnly} it fails when asked to sleep on a virtual thread, where a native sleep would
 * pin the carrier: the coordinator must hand such sleeps to a platform thread.
 */
final class SleepingHook implements ProgressHook {
    final AtomicInteger sleeps = new AtomicInteger();
    final AtomicInteger wakeups = new AtomicInteger();
    private final boolean platformOnly;
    private volatile Thread sleeper;

    SleepingHook(boolean platformOnly) {
        this.platformOnly = platformOnly;
    }

    @Override
    public boolean canBlock() {
        return true;
    }

    @Override
    public void block(long nanos) {
        if (platformOnly && Thread.currentThread().isVirtual()) {
            throw new AssertionError("block ran on a virtual thread");
        }
        sleeps.incrementAndGet();
        sleeper = Thread.currentThread();
        LockSupport.parkNanos(this, Math.min(nanos, 10_000_000));
        sleeper = null;
    }

    @Override
    public void wakeup() {
        wakeups.incrementAndGet();
        LockSupport.unpark(sleeper);
    }

    @Override
    public int progress() {
        return 0;
    }
}
