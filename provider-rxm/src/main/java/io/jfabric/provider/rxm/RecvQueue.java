package io.jfabric.provider.rxm;

import io.jfabric.Fabrics;

/**
 * One of rxm's two receive queues (untagged, tagged): posted receives in posting order and unexpected
 * messages in arrival order, as intrusive lists so matching and removal allocate nothing. Matching
 * follows ofi_match_tag / ofi_match_addr; source filtering applies only with FI_DIRECTED_RECV.
 */
final class RecvQueue {
    private final boolean tagged;
    private final boolean directed;
    RecvEntry postedHead;
    RecvEntry postedTail;
    Unexpected unexpHead;
    Unexpected unexpTail;
    int unexpCount;

    RecvQueue(boolean tagged, boolean directed) {
        this.tagged = tagged;
        this.directed = directed;
    }

    private boolean matches(long wantSrc, long wantTag, long ignore, long src, long tag) {
        if (directed && wantSrc != Fabrics.ADDR_UNSPEC && wantSrc != src) {
            return false;
        }
        return !tagged || (wantTag | ignore) == (tag | ignore);
    }

    void post(RecvEntry e) {
        e.prev = postedTail;
        e.next = null;
        if (postedTail == null) {
            postedHead = e;
        } else {
            postedTail.next = e;
        }
        postedTail = e;
        e.queued = true;
    }

    void remove(RecvEntry e) {
        if (!e.queued) {
            return;
        }
        if (e.prev == null) {
            postedHead = e.next;
        } else {
            e.prev.next = e.next;
        }
        if (e.next == null) {
            postedTail = e.prev;
        } else {
            e.next.prev = e.prev;
        }
        e.prev = e.next = null;
        e.queued = false;
    }

    /** The first posted receive that takes a message from {@code src} with {@code tag}, left in the queue. */
    RecvEntry findPosted(long src, long tag) {
        for (RecvEntry e = postedHead; e != null; e = e.next) {
            if (matches(e.srcAddr, e.tag, e.ignore, src, tag)) {
                return e;
            }
        }
        return null;
    }

    RecvEntry findPostedByContext(Object context) {
        for (RecvEntry e = postedHead; e != null; e = e.next) {
            if (e.context == context) {
                return e;
            }
        }
        return null;
    }

    void addUnexpected(Unexpected u) {
        u.prev = unexpTail;
        u.next = null;
        if (unexpTail == null) {
            unexpHead = u;
        } else {
            unexpTail.next = u;
        }
        unexpTail = u;
        unexpCount++;
    }

    void removeUnexpected(Unexpected u) {
        if (u.prev == null) {
            unexpHead = u.next;
        } else {
            u.prev.next = u.next;
        }
        if (u.next == null) {
            unexpTail = u.prev;
        } else {
            u.next.prev = u.prev;
        }
        u.prev = u.next = null;
        unexpCount--;
    }

    /** The oldest unclaimed unexpected message a receive for ({@code src}, {@code tag}, {@code ignore}) takes. */
    Unexpected findUnexpected(long src, long tag, long ignore) {
        for (Unexpected u = unexpHead; u != null; u = u.next) {
            if (u.claimedBy == null && matches(src, tag, ignore, u.src, u.tag)) {
                return u;
            }
        }
        return null;
    }

    Unexpected findClaimed(Object context) {
        for (Unexpected u = unexpHead; u != null; u = u.next) {
            if (u.claimedBy == context) {
                return u;
            }
        }
        return null;
    }

    /** The first few posted receives and unexpected messages (source, tag), for failure dumps. */
    String describe() {
        StringBuilder b = new StringBuilder(tagged ? "tagged" : "untagged").append(directed ? " directed" : "")
                .append(": posted [");
        int n = 0;
        for (RecvEntry e = postedHead; e != null && n < 4; e = e.next, n++) {
            b.append(n == 0 ? "" : ", ").append("src ").append(e.srcAddr).append(" tag ").append(e.tag);
        }
        b.append("], unexpected ").append(unexpCount).append(" [");
        n = 0;
        for (Unexpected u = unexpHead; u != null && n < 4; u = u.next, n++) {
            b.append(n == 0 ? "" : ", ").append("src ").append(u.src).append(" tag ").append(u.tag).append(" size ")
                    .append(u.size);
        }
        return b.append(']').toString();
    }
}
