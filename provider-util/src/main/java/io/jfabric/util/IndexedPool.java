package io.jfabric.util;

import java.util.function.IntFunction;

/**
 * A bounded pool whose objects have stable small integer ids, libfabric's indexed buffer pool
 * ({@code ofi_ibuf}): a provider puts the id on the wire (a message id, an rendezvous id) and maps
 * the peer's reply back to its operation state with {@link #get(int)} in O(1), checking the slot is
 * still in use and that it is the same use (a generation counter rejects late or forged replies).
 * Not thread-safe; guard it with the endpoint's lock when needed.
 */
public final class IndexedPool<T> {
    private final Object[] items;
    private final int[] freeStack;
    private final int[] generation;
    private final boolean[] inUse;
    private int top;

    /** Creates {@code capacity} objects, object {@code i} made by {@code factory.apply(i)}. */
    public IndexedPool(int capacity, IntFunction<? extends T> factory) {
        if (capacity <= 0 || capacity > (1 << 24)) {
            throw new IllegalArgumentException("pool capacity must be 1.." + (1 << 24) + ", was " + capacity);
        }
        items = new Object[capacity];
        freeStack = new int[capacity];
        generation = new int[capacity];
        inUse = new boolean[capacity];
        for (int i = 0; i < capacity; i++) {
            items[i] = factory.apply(i);
            freeStack[i] = capacity - 1 - i;
        }
        top = capacity;
    }

    /** Takes a free slot; returns its id (see {@link #handle}), or -1 when none is free. */
    public int acquire() {
        if (top == 0) {
            return -1;
        }
        int id = freeStack[--top];
        inUse[id] = true;
        generation[id]++;
        return id;
    }

    /** The object of slot {@code id}, in use or not. */
    @SuppressWarnings("unchecked")
    public T item(int id) {
        return (T) items[id];
    }

    /** The object of an in-use slot, or null when {@code id} is out of range or free. */
    @SuppressWarnings("unchecked")
    public T get(int id) {
        if (id < 0 || id >= items.length || !inUse[id]) {
            return null;
        }
        return (T) items[id];
    }

    /**
     * A 64-bit handle for the wire: generation in the high 32 bits, id in the low 32. {@link #resolve}
     * refuses a handle from an earlier use of the slot.
     */
    public long handle(int id) {
        return ((long) generation[id] << 32) | (id & 0xffffffffL);
    }

    /** The object behind {@code handle} if its slot is still in that same use, else null. */
    public T resolve(long handle) {
        int id = (int) handle;
        T t = get(id);
        if (t == null || generation[id] != (int) (handle >>> 32)) {
            return null;
        }
        return t;
    }

    /** Returns slot {@code id}; false if it was not in use (a double release, which changes nothing). */
    public boolean release(int id) {
        if (id < 0 || id >= items.length || !inUse[id]) {
            return false;
        }
        inUse[id] = false;
        freeStack[top++] = id;
        return true;
    }

    public int available() {
        return top;
    }

    public int capacity() {
        return items.length;
    }
}
