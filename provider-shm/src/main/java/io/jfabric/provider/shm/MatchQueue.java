package io.jfabric.provider.shm;

import io.jfabric.Fabrics;

/**
 * An intrusive FIFO of posted receives or unexpected messages with libfabric's matching rule
 * (fi_tagged(3)): a receive posted for {@code (src, tag, ignore)} takes a message from {@code from}
 * with tag {@code t} when {@code src} is FI_ADDR_UNSPEC or equals {@code from}, and
 * {@code (t ^ tag) & ~ignore == 0}. Untagged queues pass tag 0 and ignore 0.
 *
 * <p>Kept in this module because provider-util has no tag matcher yet; it is generic and can move
 * there as is.
 */
final class MatchQueue<T extends MatchQueue.Entry> {

    /** Linkage and match fields; subclasses add their payload. */
    abstract static class Entry {
        Entry prev;
        Entry next;
        /** For a posted receive: the source it accepts (FI_ADDR_UNSPEC = any); for a message: its sender. */
        long srcAddr;
        long tag;
        /** Posted receives only. */
        long ignore;
    }

    private Entry head;
    private Entry tail;
    private int size;

    void add(T e) {
        e.next = null;
        e.prev = tail;
        if (tail == null) {
            head = e;
        } else {
            tail.next = e;
        }
        tail = e;
        size++;
    }

    void remove(T e) {
        if (e.prev == null) {
            head = e.next;
        } else {
            e.prev.next = e.next;
        }
        if (e.next == null) {
            tail = e.prev;
        } else {
            e.next.prev = e.prev;
        }
        e.prev = null;
        e.next = null;
        size--;
    }

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    T first() {
        return (T) head;
    }

    @SuppressWarnings("unchecked")
    T next(T e) {
        return (T) e.next;
    }

    /** The oldest posted receive that accepts a message from {@code from} with {@code tag}. */
    @SuppressWarnings("unchecked")
    T matchReceive(long from, long tag) {
        for (Entry e = head; e != null; e = e.next) {
            if ((e.srcAddr == Fabrics.ADDR_UNSPEC || e.srcAddr == from) && ((e.tag ^ tag) & ~e.ignore) == 0) {
                return (T) e;
            }
        }
        return null;
    }

    /** The oldest queued message that a receive for {@code (src, tag, ignore)} accepts. */
    @SuppressWarnings("unchecked")
    T matchMessage(long src, long tag, long ignore) {
        for (Entry e = head; e != null; e = e.next) {
            if ((src == Fabrics.ADDR_UNSPEC || e.srcAddr == src) && ((e.tag ^ tag) & ~ignore) == 0) {
                return (T) e;
            }
        }
        return null;
    }
}
