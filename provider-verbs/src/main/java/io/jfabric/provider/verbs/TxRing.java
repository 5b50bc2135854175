package io.jfabric.provider.verbs;

/**
 * What each posted work request needs at completion time, indexed by the slot number carried in its
 * {@code wr_id}. Work requests of one queue complete in order on an RC QP, so the ring's oldest slots
 * are released as later ones complete (that is also how unsignaled sends are retired).
 */
final class TxRing {
    final Object[] context;
    final long[] flags;
    final long[] length;
    /** Whether a success completion is reported to the user (false: selective completion, inject). */
    final boolean[] report;
    final int size;
    int head;
    int tail;
    int count;

    TxRing(int size) {
        this.size = size;
        context = new Object[size];
        flags = new long[size];
        length = new long[size];
        report = new boolean[size];
    }

    boolean full() {
        return count == size;
    }

    /** The slot the next post uses; {@link #commit} it once the post succeeded. */
    int next() {
        return head;
    }

    void commit(int slot, Object ctx, long opFlags, long len, boolean reportSuccess) {
        context[slot] = ctx;
        flags[slot] = opFlags;
        length[slot] = len;
        report[slot] = reportSuccess;
        head = (head + 1) % size;
        count++;
    }

    /** Whether {@code slot} is posted and not yet completed. */
    boolean outstanding(int slot) {
        if (count == 0 || slot < 0 || slot >= size) {
            return false;
        }
        int dist = (slot - tail + size) % size;
        return dist < count;
    }

    /** Releases the oldest slot. */
    void releaseTail() {
        context[tail] = null;
        tail = (tail + 1) % size;
        count--;
    }
}
