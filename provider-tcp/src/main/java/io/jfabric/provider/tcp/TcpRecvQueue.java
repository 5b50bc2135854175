package io.jfabric.provider.tcp;

/**
 * One connection's posted receives: the pool of {@link RxEntry}s and the untagged and tagged receives in
 * posting order. tcp keeps no unexpected messages: a frame that no posted receive takes waits in the socket
 * (backpressure), so matching is a search of the posted receives only.
 *
 * <p>Not thread-safe: every method runs under the owning endpoint's lock.
 */
final class TcpRecvQueue {
    private final ViewCache viewCache;
    private RxEntry postedHead;
    private RxEntry postedTail;
    /** Posted tagged receives, searched in posting order; a tagged frame with no match waits (backpressure). */
    private RxEntry taggedHead;
    private RxEntry taggedTail;
    private RxEntry rxFree;
    /** Receive entries the rx size still allows beyond those built. */
    private int rxUnbuilt;

    TcpRecvQueue(ViewCache viewCache, int rxSize) {
        this.viewCache = viewCache;
        // built on first use, as the transmit entries (see TcpTxQueue)
        this.rxUnbuilt = rxSize;
    }

    /** A free entry, or null when rx_size receives are posted (-EAGAIN). */
    RxEntry take() {
        RxEntry e = rxFree;
        if (e != null) {
            rxFree = e.next;
            e.next = null;
        } else if (rxUnbuilt > 0) {
            rxUnbuilt--;
            e = new RxEntry(viewCache);
        }
        return e;
    }

    void release(RxEntry e) {
        e.reset();
        e.next = rxFree;
        rxFree = e;
    }

    void post(RxEntry e) {
        if (e.tagged) {
            if (taggedTail == null) {
                taggedHead = e;
            } else {
                taggedTail.next = e;
            }
            taggedTail = e;
        } else if (postedTail == null) {
            postedHead = e;
            postedTail = e;
        } else {
            postedTail.next = e;
            postedTail = e;
        }
    }

    /** The posted receive a frame ({@code tagged}, {@code tag}) goes to, unlinked; null when it must wait. */
    RxEntry match(boolean tagged, long tag) {
        if (tagged) {
            return taggedHead == null ? null : unlink(true, null, true, tag);
        }
        RxEntry e = postedHead;
        if (e != null) {
            postedHead = e.next;
            if (postedHead == null) {
                postedTail = null;
            }
            e.next = null;
        }
        return e;
    }

    /** Whether {@link #match} would find a receive, without taking it. */
    boolean hasMatch(boolean tagged, long tag) {
        if (!tagged) {
            return postedHead != null;
        }
        for (RxEntry e = taggedHead; e != null; e = e.next) {
            if (e.matches(tag)) {
                return true;
            }
        }
        return false;
    }

    /** fi_cancel: the posted receive with {@code context}, tagged ones first, unlinked; null when none. */
    RxEntry cancel(Object context) {
        RxEntry e = unlink(true, context, false, 0);
        return e != null ? e : unlink(false, context, false, 0);
    }

    /**
     * Removes and returns the first entry of the tagged or untagged posted list that has {@code context}
     * ({@code byContext}) or matches {@code sendTag}; null when none.
     */
    private RxEntry unlink(boolean tagged, Object context, boolean byTag, long sendTag) {
        RxEntry prev = null;
        for (RxEntry e = tagged ? taggedHead : postedHead; e != null; prev = e, e = e.next) {
            if (byTag ? e.matches(sendTag) : e.context == context) {
                if (tagged) {
                    if (prev == null) {
                        taggedHead = e.next;
                    } else {
                        prev.next = e.next;
                    }
                    if (taggedTail == e) {
                        taggedTail = prev;
                    }
                } else {
                    if (prev == null) {
                        postedHead = e.next;
                    } else {
                        prev.next = e.next;
                    }
                    if (postedTail == e) {
                        postedTail = prev;
                    }
                }
                e.next = null;
                return e;
            }
        }
        return null;
    }

    /** Unlinks and returns any posted receive (untagged first), for flushing; null when none. */
    RxEntry removeFirst() {
        RxEntry e = postedHead;
        if (e != null) {
            return match(false, 0);
        }
        e = taggedHead;
        if (e != null) {
            taggedHead = e.next;
            if (taggedHead == null) {
                taggedTail = null;
            }
            e.next = null;
        }
        return e;
    }

    /** Short state dump for test failure messages. */
    String describe() {
        int posted = 0;
        for (RxEntry e = postedHead; e != null; e = e.next) {
            posted++;
        }
        int postedTagged = 0;
        for (RxEntry e = taggedHead; e != null; e = e.next) {
            postedTagged++;
        }
        return "posted=" + posted + ", postedTagged=" + postedTagged;
    }
}
