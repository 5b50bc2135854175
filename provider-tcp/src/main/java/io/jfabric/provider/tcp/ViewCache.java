package io.jfabric.provider.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The {@link ByteBuffer} views of caller segments that one connection's queue entries share, keyed by
 * address. Applications rotate their buffers through posts in a different order than the connection
 * reuses its entries, so a view cached per entry alone keeps missing, and {@link MemorySegment#asByteBuffer()}
 * allocates. A view is lent to one entry at a time (its position belongs to that operation) and comes back
 * when the entry takes another buffer. Bounded: when every slot is lent out, the caller makes a private view.
 * Used under the connection's serialization (the endpoint lock, or the single progress context).
 */
final class ViewCache {
    static final int CAPACITY = 256;

    private final long[] address = new long[CAPACITY];
    private final long[] size = new long[CAPACITY];
    private final MemorySegment[] segment = new MemorySegment[CAPACITY];
    private final ByteBuffer[] view = new ByteBuffer[CAPACITY];
    private final boolean[] lent = new boolean[CAPACITY];
    private int used;
    private int hand;

    /** Lends a view of all of native segment {@code s}; returns its slot, or -1 when every slot is lent. */
    int lend(MemorySegment s) {
        long a = s.address();
        long n = s.byteSize();
        for (int i = 0; i < used; i++) {
            if (!lent[i] && address[i] == a && size[i] == n) {
                MemorySegment cached = segment[i];
                if (cached.scope().isAlive() && cached.scope().equals(s.scope())) {
                    lent[i] = true;
                    return i;
                }
            }
        }
        int slot = used < CAPACITY ? used++ : victim();
        if (slot < 0) {
            return -1;
        }
        address[slot] = a;
        size[slot] = n;
        segment[slot] = s;
        view[slot] = s.asByteBuffer();
        lent[slot] = true;
        return slot;
    }

    ByteBuffer view(int slot) {
        return view[slot];
    }

    /** Address of the slot's memory, or 0 when its segment was closed (the memory may be gone). */
    long liveAddress(int slot) {
        return segment[slot].scope().isAlive() ? address[slot] : 0;
    }

    void giveBack(int slot) {
        lent[slot] = false;
    }

    /** Drops every view (on close) so no dead memory stays referenced. */
    void clear() {
        for (int i = 0; i < used; i++) {
            segment[i] = null;
            view[i] = null;
            lent[i] = false;
        }
        used = 0;
    }

    /** A slot not lent out, taken round-robin so recently used views tend to survive. */
    private int victim() {
        for (int k = 0; k < CAPACITY; k++) {
            int i = (hand + k) % CAPACITY;
            if (!lent[i]) {
                hand = (i + 1) % CAPACITY;
                return i;
            }
        }
        return -1;
    }
}
