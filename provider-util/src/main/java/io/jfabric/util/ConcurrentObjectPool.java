package io.jfabric.util;

import java.util.function.Supplier;

/**
 * The thread-safe {@link ObjectPool}: the same bounded, allocation-free stack behind a short
 * uncontended-case monitor. For FI_THREAD_SAFE endpoints, or state acquired on an application thread
 * and released on the progress thread.
 */
public final class ConcurrentObjectPool<T> {
    private final ObjectPool<T> pool;

    public ConcurrentObjectPool(int capacity, Supplier<? extends T> factory) {
        this.pool = new ObjectPool<>(capacity, factory);
    }

    /** An object, or null when all are in use. */
    public T acquire() {
        synchronized (pool) {
            return pool.acquire();
        }
    }

    public void release(T t) {
        synchronized (pool) {
            pool.release(t);
        }
    }

    public int available() {
        synchronized (pool) {
            return pool.available();
        }
    }

    public int capacity() {
        return pool.capacity();
    }
}
