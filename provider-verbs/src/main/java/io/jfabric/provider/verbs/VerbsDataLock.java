package io.jfabric.provider.verbs;

import io.jfabric.Threading;
import io.jfabric.util.NoLock;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a verbs domain's threading level needs around the state jfabric keeps beside libibverbs (which is
 * thread-safe itself): each queue pair's send/receive rings, its preallocated work request and SGE list, and each
 * CQ's poll batch and queue-pair table. Posts and CQ progress both take it. FI_THREAD_DOMAIN and
 * FI_THREAD_COMPLETION get {@link #NONE}, provider-util's NoLock (the application serialises each completion
 * context, and nothing is shared across them); FI_THREAD_SAFE, FI_THREAD_FID and FI_THREAD_ENDPOINT, under which
 * a poster and a CQ reader may run at once, get one reentrant lock per domain (a post may poll its CQ for room).
 */
final class VerbsDataLock {
    static final VerbsDataLock NONE = new VerbsDataLock(NoLock.INSTANCE, false);

    private final Lock lock;
    private final boolean concurrent;

    private VerbsDataLock(Lock lock, boolean concurrent) {
        this.lock = lock;
        this.concurrent = concurrent;
    }

    void lock() {
        lock.lock();
    }

    void unlock() {
        lock.unlock();
    }

    /** Whether CQ readers may be several threads at once. */
    boolean concurrent() {
        return concurrent;
    }

    /** The lock itself, for UtilEndpoint to take around an endpoint's posts. */
    Lock asLock() {
        return lock;
    }

    static VerbsDataLock of(Threading level) {
        return level == null || level == Threading.UNSPEC || level == Threading.DOMAIN
                || level == Threading.COMPLETION ? NONE : new VerbsDataLock(new ReentrantLock(), true);
    }
}
