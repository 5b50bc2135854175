package io.jfabric.util;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The lock of an endpoint whose domain promises serialised access (FI_THREAD_DOMAIN, COMPLETION or
 * ENDPOINT) under manual progress: nothing to exclude, so nothing is done. Providers hand it where a lock is
 * expected, so that one code path serves every threading level.
 */
public final class NoLock implements Lock {
    public static final NoLock INSTANCE = new NoLock();

    private NoLock() {
    }

    @Override
    public void lock() {
    }

    @Override
    public void lockInterruptibly() {
    }

    @Override
    public boolean tryLock() {
        return true;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) {
        return true;
    }

    @Override
    public void unlock() {
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("no conditions on a no-op lock");
    }
}
