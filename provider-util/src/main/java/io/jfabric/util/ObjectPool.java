package io.jfabric.util;

import java.util.function.Supplier;

/**
 * A bounded pool of reusable objects for operation state (libfabric's {@code ofi_bufpool} / the
 * freestack macros), so the data path never allocates: everything is created up front, {@link #acquire()}
 * returns null when the pool is empty (answer the post with -EAGAIN), and {@link #release} puts an
 * object back. Not thread-safe: use it from one thread, or under the lock that already guards the
 * endpoint. Releasing an object twice or one that did not come from the pool is not detected (it would
 * cost a field per object).
 */
public final class ObjectPool<T> {
    private final Object[] free;
    private int top;
    private final int capacity;

    /** Creates {@code capacity} objects with {@code factory} now. */
    public ObjectPool(int capacity, Supplier<? extends T> factory) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("pool capacity must be > 0, was " + capacity);
        }
        this.capacity = capacity;
        this.free = new Object[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = factory.get();
        }
        this.top = capacity;
    }

    /** An object, or null when all are in use. */
    @SuppressWarnings("unchecked")
    public T acquire() {
        if (top == 0) {
            return null;
        }
        T t = (T) free[--top];
        free[top] = null;
        return t;
    }

    public void release(T t) {
        if (t == null) {
            return;
        }
        if (top == capacity) {
            throw new IllegalStateException("pool overflow: an object was released twice or came from elsewhere");
        }
        free[top++] = t;
    }

    /** Objects ready to be acquired. */
    public int available() {
        return top;
    }

    public int capacity() {
        return capacity;
    }
}
