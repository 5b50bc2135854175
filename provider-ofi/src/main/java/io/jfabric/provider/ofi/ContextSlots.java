package io.jfabric.provider.ofi;

import io.jfabric.provider.ofi.ffi.fi_context2;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed pool of native {@code struct fi_context2} slots, one per outstanding operation. The native
 * call gets the slot's address as its {@code void *context} (providers with FI_CONTEXT/FI_CONTEXT2 mode
 * may scribble in it), and the completion's {@code op_context} leads back to the slot, and from there to
 * the Java context object, by arithmetic: no map and no allocation per operation.
 *
 * <p>The free list is a Treiber stack whose head carries a version counter against ABA, so several
 * threads may post and complete at once without a lock.
 */
final class ContextSlots {
    static final long SLOT_SIZE = fi_context2.sizeof();
    private static final int NONE = -1;

    private final MemorySegment slots;
    /** One segment per slot, made once, so posting passes a slot without allocating. */
    private final MemorySegment[] slotSegments;
    private final long base;
    private final Object[] contexts;
    private final boolean[] multiRecv;
    private final int[] next;
    /** High 32 bits: version; low 32 bits: index of the first free slot, or NONE. */
    private final AtomicLong head = new AtomicLong();

    ContextSlots(Arena arena, int count) {
        slots = arena.allocate(SLOT_SIZE * count, 64);
        base = slots.address();
        contexts = new Object[count];
        multiRecv = new boolean[count];
        next = new int[count];
        slotSegments = new MemorySegment[count];
        for (int i = 0; i < count; i++) {
            slotSegments[i] = slots.asSlice(i * SLOT_SIZE, SLOT_SIZE);
        }
        for (int i = 0; i < count; i++) {
            next[i] = i + 1 < count ? i + 1 : NONE;
        }
        head.set(count == 0 ? pack(0, NONE) : pack(0, 0));
    }

    private static long pack(long version, int index) {
        return (version << 32) | (index & 0xFFFFFFFFL);
    }

    /** Claims a slot for {@code context}; its index, or -1 when every slot is in use. */
    int acquire(Object context, boolean multi) {
        for (;;) {
            long h = head.get();
            int i = (int) h;
            if (i == NONE) {
                return -1;
            }
            if (head.compareAndSet(h, pack((h >>> 32) + 1, next[i]))) {
                contexts[i] = context;
                multiRecv[i] = multi;
                return i;
            }
        }
    }

    /** The native fi_context2 of slot {@code i}, to pass as the operation's context. */
    MemorySegment segment(int i) {
        return slotSegments[i];
    }

    /** The address of slot {@code i}'s fi_context2, as the data calls take it. */
    long address(int i) {
        return base + i * SLOT_SIZE;
    }

    /** The slot index behind a native context address, or -1 if it is not one of ours. */
    int indexOf(long address) {
        long off = address - base;
        if (off < 0 || off >= SLOT_SIZE * contexts.length || off % SLOT_SIZE != 0) {
            return -1;
        }
        return (int) (off / SLOT_SIZE);
    }

    /**
     * The Java context of the completion whose {@code op_context} is {@code address}; frees the slot
     * unless it belongs to a multi-receive buffer that is still in use ({@code lastUse} false).
     */
    Object complete(long address, boolean lastUse) {
        int i = indexOf(address);
        if (i < 0) {
            return null;
        }
        Object c = contexts[i];
        if (!multiRecv[i] || lastUse) {
            release(i);
        }
        return c;
    }

    /** Returns slot {@code i}: its operation was never posted, or has completed. */
    void release(int i) {
        contexts[i] = null;
        multiRecv[i] = false;
        for (;;) {
            long h = head.get();
            next[i] = (int) h;
            if (head.compareAndSet(h, pack((h >>> 32) + 1, i))) {
                return;
            }
        }
    }

    /** The index of an in-use slot holding {@code context} (identity), or -1; for fi_cancel. */
    int find(Object context) {
        if (context != null) {
            for (int i = 0; i < contexts.length; i++) {
                if (contexts[i] == context) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** How many slots are free (a walk; for tests and state dumps only). */
    int free() {
        int n = 0;
        for (int i = (int) head.get(); i != NONE; i = next[i]) {
            n++;
        }
        return n;
    }

    int capacity() {
        return contexts.length;
    }
}
