package io.jfabric.provider.tcp;

import io.jfabric.Fabrics;
import io.jfabric.util.TagMatcher;

/**
 * One connection's posted receives: the pool of {@link RxEntry}s, matched to arriving frames by provider-util's
 * {@link TagMatcher} (untagged receives in posting order; tagged ones by fi_tagged(3)'s rule, in posting
 * order). tcp keeps no unexpected messages: a frame that no posted receive takes waits in the socket
 * (backpressure), so only the matcher's posted side is used.
 *
 * <p>Not thread-safe: every method runs under the owning endpoint's lock.
 */
final class TcpRecvQueue {
    private final ViewCache viewCache;
    /** One receive node per entry the rx size allows, built on first use as the entries are. */
    private final TagMatcher matcher;
    private RxEntry rxFree;
    /** Receive entries the rx size still allows beyond those built. */
    private int rxUnbuilt;

    TcpRecvQueue(ViewCache viewCache, int rxSize) {
        this.viewCache = viewCache;
        // built on first use, as the transmit entries (see TcpTxQueue)
        this.rxUnbuilt = rxSize;
        this.matcher = TagMatcher.onDemand(rxSize, 1, false, 0);
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

    /** Posts a filled entry from {@link #take()}; the matcher has a node for every entry the pool gives out. */
    void post(RxEntry e) {
        TagMatcher.Recv r = matcher.newRecv();
        r.tagged = e.tagged;
        r.tag = e.tag;
        r.ignore = e.ignore;
        r.context = e.context;
        r.state = e;
        matcher.post(r);
    }

    /** The posted receive a frame ({@code tagged}, {@code tag}) goes to, unlinked; null when it must wait. */
    RxEntry match(boolean tagged, long tag) {
        return unwrap(matcher.matchPosted(tagged, tag, Fabrics.ADDR_NOTAVAIL));
    }

    /** Whether {@link #match} would find a receive, without taking it. */
    boolean hasMatch(boolean tagged, long tag) {
        return matcher.hasPostedMatch(tagged, tag, Fabrics.ADDR_NOTAVAIL);
    }

    /** fi_cancel: the posted receive with {@code context}, tagged ones first, unlinked; null when none. */
    RxEntry cancel(Object context) {
        return unwrap(matcher.cancel(context));
    }

    /** Unlinks and returns any posted receive, for flushing; null when none. */
    RxEntry removeFirst() {
        return unwrap(matcher.removeFirstPosted());
    }

    private RxEntry unwrap(TagMatcher.Recv r) {
        if (r == null) {
            return null;
        }
        RxEntry e = (RxEntry) r.state;
        matcher.free(r);
        return e;
    }

    /** Short state dump for test failure messages. */
    String describe() {
        return "posted=" + matcher.postedCount();
    }
}
