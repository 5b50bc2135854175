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
    private Object[] free;
    private int top;
    private final int capacity;
    /** No bound: objects are made whenever none is free, and the free stack grows to hold them all. */
    private final boolean growing;
    /** Builds the objects not made up front; null when all were. */
    private final Supplier<? extends T> factory;
    /** Objects the capacity still allows beyond those built. */
    private int unbuilt;

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
        this.factory = null;
        this.growing = false;
    }

    /**
     * Creates {@code prebuilt} objects now and the rest of {@code capacity} when first acquired, for a pool
     * that is often far from full (one per connection, with thousands of connections): an object is
     * allocated at most once, so the data path stops allocating once the pool has been as full as it gets.
     */
    public ObjectPool(int capacity, int prebuilt, Supplier<? extends T> factory) {
        if (capacity <= 0 || prebuilt < 0 || prebuilt > capacity) {
            throw new IllegalArgumentException("pool capacity must be > 0 and prebuilt 0..capacity, were "
                    + capacity + " and " + prebuilt);
        }
        this.capacity = capacity;
        this.free = new Object[capacity];
        for (int i = 0; i < prebuilt; i++) {
            free[i] = factory.get();
        }
        this.top = prebuilt;
        this.factory = factory;
        this.unbuilt = capacity - prebuilt;
        this.growing = false;
    }

    private ObjectPool(Supplier<? extends T> factory) {
        this.capacity = Integer.MAX_VALUE;
        this.free = new Object[16];
        this.factory = factory;
        this.unbuilt = Integer.MAX_VALUE;
        this.growing = true;
    }

    /**
     * A pool without a bound, for a provider that bounds its backlog elsewhere: {@link #acquire()} never answers
     * null, objects are made as the pool warms up and reused after, so it stops allocating once it has been as
     * full as it gets.
     */
    public static <T> ObjectPool<T> growing(Supplier<? extends T> factory) {
        return new ObjectPool<>(factory);
    }

    /** An object, or null when all are in use. */
    @SuppressWarnings("unchecked")
    public T acquire() {
        if (top == 0) {
            if (growing) {
                return factory.get();
            }
            if (unbuilt > 0) {
                unbuilt--;
                return factory.get();
            }
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
        if (top == free.length && growing) {
            free = java.util.Arrays.copyOf(free, free.length * 2);
        } else if (top == capacity) {
            throw new IllegalStateException("pool overflow: an object was released twice or came from elsewhere");
        }
        free[top++] = t;
    }

    /** Objects ready to be acquired. */
    public int available() {
        return growing ? Integer.MAX_VALUE : top + unbuilt;
    }

    public int capacity() {
        return capacity;
    }
}
