package io.jfabric.util;

import io.jfabric.Fabrics;
import io.jfabric.OpFlags;

/**
 * Receive-side matching for one receive context, the shared part of libfabric's rxm/tcp/shm
 * {@code *_srx} and {@code util_srx.c} code, following fi_tagged(3) and fi_msg(3):
 *
 * <ul>
 * <li>Posted receives and unexpected messages sit in separate queues for tagged and untagged traffic.
 * Posted receives are searched in posting order, unexpected messages in arrival order.</li>
 * <li>Tags match when {@code (sendTag | ignore) == (recvTag | ignore)} (ofi_match_tag). With
 * FI_DIRECTED_RECV ({@code directed = true}) a receive's source fi_addr must equal the sender's unless
 * it is FI_ADDR_UNSPEC (ofi_match_addr); without it sources are ignored.</li>
 * <li>FI_PEEK is {@link #findUnexpected}; FI_CLAIM is {@link #claim} + {@link #takeClaimed} (the
 * claimed message is hidden from other receives and peeks); FI_DISCARD is {@link #removeUnexpected}
 * + {@link #free(Unexpected)} after the provider drops the payload.</li>
 * <li>FI_MULTI_RECV: a posted receive with {@link OpFlags#MULTI_RECV} stays posted across matches;
 * {@link #consumeMultiRecv} places each message in it and releases it (unlinks, sets
 * {@link Recv#released}) once less than {@link #minMultiRecv()} bytes remain; the provider then
 * sets FI_MULTI_RECV on that completion (or writes a separate one).</li>
 * <li>Cancel by context ({@link #cancel}) removes a posted receive, tagged queue first (as rxm does);
 * the provider completes it with ECANCELED.</li>
 * </ul>
 *
 * <p>No allocation per operation: {@link Recv} and {@link Unexpected} nodes come from pools and link
 * into intrusive lists. With {@link #TagMatcher(int, int, boolean, long) fixed pools} the unexpected
 * queue is bounded: {@link #addUnexpected} returns null when full, and the provider applies
 * backpressure (stops reading that connection, RNR, or drops with an error, as its protocol allows).
 * With {@link #TagMatcher(boolean, long) growing pools} nothing is refused: the nodes are made as the
 * receive context warms up and reused after, for a provider that bounds its backlog elsewhere (rxm
 * bounds the receive buffers unexpected messages hold). Not thread-safe: the provider calls it under
 * the receive context's serialization (its lock, or its progress thread).
 */
public final class TagMatcher {

    /** A posted receive. Public fields are the provider's to fill before {@link #post}. */
    public static final class Recv {
        Recv prev;
        Recv next;
        boolean linked;
        public Object context;
        public boolean tagged;
        public long tag;
        public long ignore;
        /** FI_ADDR_UNSPEC to accept any sender. */
        public long src = Fabrics.ADDR_UNSPEC;
        /** Op flags of the post (MULTI_RECV, COMPLETION, ...). */
        public long flags;
        /** Provider's buffer description (MemorySegment, iov array ...). */
        public Object buffer;
        /** Buffer bytes in total. */
        public long length;
        /** Bytes already used by earlier messages (FI_MULTI_RECV). */
        public long consumed;
        /** Provider slots. */
        public Object state;
        public long data;
        /** Set by {@link #consumeMultiRecv} when this multi-recv buffer was released. */
        public boolean released;
        /**
         * Messages a provider is still placing in this multi-recv buffer (their slices taken, their bytes not all
         * in): the buffer's last completion, the one with FI_MULTI_RECV, waits for them.
         */
        public int slicesInFlight;

        private Recv() {
        }

        void reset() {
            prev = next = null;
            linked = false;
            context = null;
            tagged = false;
            tag = ignore = 0;
            src = Fabrics.ADDR_UNSPEC;
            flags = 0;
            buffer = null;
            length = consumed = 0;
            state = null;
            data = 0;
            released = false;
            slicesInFlight = 0;
        }

        public boolean isMultiRecv() {
            return (flags & OpFlags.MULTI_RECV) != 0;
        }

        public boolean isPosted() {
            return linked;
        }
    }

    /** A message that arrived before a matching receive. */
    public static final class Unexpected {
        Unexpected prev;
        Unexpected next;
        boolean linked;
        Object claimedBy;
        public boolean tagged;
        public long tag;
        public long src = Fabrics.ADDR_NOTAVAIL;
        /** Message bytes in total. */
        public long len;
        /** Remote CQ data, if flags has REMOTE_CQ_DATA. */
        public long data;
        public long flags;
        /** Provider's handle on the buffered data (a copy, a ring slot, a rendezvous descriptor). */
        public Object payload;
        public long payloadLong;

        private Unexpected() {
        }

        void reset() {
            prev = next = null;
            linked = false;
            claimedBy = null;
            tagged = false;
            tag = 0;
            src = Fabrics.ADDR_NOTAVAIL;
            len = data = flags = 0;
            payload = null;
            payloadLong = 0;
        }

        /** The context that claimed it (FI_PEEK|FI_CLAIM), or null. */
        public Object claimedBy() {
            return claimedBy;
        }
    }

    /** Intrusive FIFO of Recv nodes. */
    private static final class RecvList {
        Recv head;
        Recv tail;
        int size;

        void add(Recv r) {
            r.prev = tail;
            r.next = null;
            if (tail == null) {
                head = r;
            } else {
                tail.next = r;
            }
            tail = r;
            r.linked = true;
            size++;
        }

        void unlink(Recv r) {
            if (r.prev == null) {
                head = r.next;
            } else {
                r.prev.next = r.next;
            }
            if (r.next == null) {
                tail = r.prev;
            } else {
                r.next.prev = r.prev;
            }
            r.prev = r.next = null;
            r.linked = false;
            size--;
        }
    }

    /** Intrusive FIFO of Unexpected nodes. */
    private static final class UnexpList {
        Unexpected head;
        Unexpected tail;
        int size;

        void add(Unexpected u) {
            u.prev = tail;
            u.next = null;
            if (tail == null) {
                head = u;
            } else {
                tail.next = u;
            }
            tail = u;
            u.linked = true;
            size++;
        }

        void unlink(Unexpected u) {
            if (u.prev == null) {
                head = u.next;
            } else {
                u.prev.next = u.next;
            }
            if (u.next == null) {
                tail = u.prev;
            } else {
                u.next.prev = u.prev;
            }
            u.prev = u.next = null;
            u.linked = false;
            size--;
        }
    }

    private final boolean directed;
    private final ObjectPool<Recv> recvPool;
    private final ObjectPool<Unexpected> unexpPool;
    private final RecvList postedTagged = new RecvList();
    private final RecvList postedMsg = new RecvList();
    private final UnexpList unexpTagged = new UnexpList();
    private final UnexpList unexpMsg = new UnexpList();
    private long minMultiRecv;

    /**
     * @param maxPosted     receives that may be posted at once (rx_attr.size)
     * @param maxUnexpected unexpected messages held at once before {@link #addUnexpected} says full
     * @param directed      FI_DIRECTED_RECV: match on source address
     * @param minMultiRecv  FI_OPT_MIN_MULTI_RECV (rxm's default is 16384)
     */
    public TagMatcher(int maxPosted, int maxUnexpected, boolean directed, long minMultiRecv) {
        this(new ObjectPool<>(maxPosted, Recv::new), new ObjectPool<>(maxUnexpected, Unexpected::new), directed,
                minMultiRecv);
    }

    /**
     * A matcher whose nodes grow on demand and are reused once freed: {@link #newRecv} and
     * {@link #addUnexpected} never answer null, and nothing is made before it is needed.
     *
     * @param directed     FI_DIRECTED_RECV: match on source address
     * @param minMultiRecv FI_OPT_MIN_MULTI_RECV
     */
    public TagMatcher(boolean directed, long minMultiRecv) {
        this(ObjectPool.growing(Recv::new), ObjectPool.growing(Unexpected::new), directed, minMultiRecv);
    }

    /**
     * As {@link #TagMatcher(int, int, boolean, long)}, building the receive and unexpected nodes when first
     * needed rather than up front: for a matcher per connection, where most connections carry little.
     */
    public static TagMatcher onDemand(int maxPosted, int maxUnexpected, boolean directed, long minMultiRecv) {
        return new TagMatcher(new ObjectPool<>(maxPosted, 0, Recv::new),
                new ObjectPool<>(Math.max(1, maxUnexpected), 0, Unexpected::new), directed, minMultiRecv);
    }

    private TagMatcher(ObjectPool<Recv> recvPool, ObjectPool<Unexpected> unexpPool, boolean directed,
                       long minMultiRecv) {
        this.directed = directed;
        this.recvPool = recvPool;
        this.unexpPool = unexpPool;
        this.minMultiRecv = minMultiRecv;
    }

    public boolean directed() {
        return directed;
    }

    public long minMultiRecv() {
        return minMultiRecv;
    }

    /** fi_setopt(FI_OPT_MIN_MULTI_RECV). */
    public void setMinMultiRecv(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("min_multi_recv must be >= 0");
        }
        this.minMultiRecv = bytes;
    }

    // ---- matching rules --------------------------------------------------------------------------

    /** ofi_match_tag. */
    public static boolean tagMatches(long recvTag, long ignore, long sendTag) {
        return (recvTag | ignore) == (sendTag | ignore);
    }

    /** ofi_match_addr under this matcher's FI_DIRECTED_RECV setting. */
    public boolean sourceMatches(long recvSrc, long sendSrc) {
        return !directed || recvSrc == Fabrics.ADDR_UNSPEC || recvSrc == sendSrc;
    }

    // ---- posted receives -------------------------------------------------------------------------

    /** A blank receive node, or null when maxPosted are in use (answer the post with -EAGAIN). */
    public Recv newRecv() {
        Recv r = recvPool.acquire();
        if (r != null) {
            r.reset();
        }
        return r;
    }

    /** Returns a receive node that is no longer posted. */
    public void free(Recv r) {
        if (r == null) {
            return;
        }
        if (r.linked) {
            throw new IllegalStateException("free of a receive that is still posted; cancel or match it first");
        }
        r.reset();
        recvPool.release(r);
    }

    /** Queues a receive (call {@link #takeUnexpected} first: a matching unexpected message wins). */
    public void post(Recv r) {
        if (r.linked) {
            throw new IllegalStateException("receive is already posted");
        }
        (r.tagged ? postedTagged : postedMsg).add(r);
    }

    /**
     * The first posted receive that takes a message with {@code tag} from {@code src}. A normal receive
     * is unlinked (the caller completes and frees it); a multi-recv receive stays posted (use
     * {@link #consumeMultiRecv}). Null when none matches (queue it with {@link #addUnexpected}).
     */
    public Recv matchPosted(boolean tagged, long tag, long src) {
        RecvList list = tagged ? postedTagged : postedMsg;
        for (Recv r = list.head; r != null; r = r.next) {
            if ((!tagged || tagMatches(r.tag, r.ignore, tag)) && sourceMatches(r.src, src)) {
                if (!r.isMultiRecv()) {
                    list.unlink(r);
                }
                return r;
            }
        }
        return null;
    }

    /** Whether {@link #matchPosted} would find a receive, without taking it. */
    public boolean hasPostedMatch(boolean tagged, long tag, long src) {
        for (Recv r = (tagged ? postedTagged : postedMsg).head; r != null; r = r.next) {
            if ((!tagged || tagMatches(r.tag, r.ignore, tag)) && sourceMatches(r.src, src)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Places a {@code len}-byte message in multi-recv buffer {@code r}: returns the offset in the
     * buffer where it goes and advances {@link Recv#consumed} by the bytes that fit (the caller
     * reports truncation when {@code len} is larger than {@link #remaining}). Once less than
     * {@link #minMultiRecv()} bytes are left the buffer is unlinked and {@link Recv#released} set.
     */
    public long consumeMultiRecv(Recv r, long len) {
        long at = r.consumed;
        long fit = Math.min(Math.max(len, 0), r.length - r.consumed);
        r.consumed += fit;
        if (r.length - r.consumed < minMultiRecv || r.consumed == r.length) {
            if (r.linked) {
                (r.tagged ? postedTagged : postedMsg).unlink(r);
            }
            r.released = true;
        }
        return at;
    }

    /** Bytes still free in receive {@code r}. */
    public static long remaining(Recv r) {
        return r.length - r.consumed;
    }

    /** fi_cancel: unlinks the posted receive with {@code context} (tagged queue first), or null. */
    public Recv cancel(Object context) {
        if (context == null) {
            return null;
        }
        Recv r = findByContext(postedTagged, context);
        if (r == null) {
            r = findByContext(postedMsg, context);
        }
        return r;
    }

    private static Recv findByContext(RecvList list, Object context) {
        for (Recv r = list.head; r != null; r = r.next) {
            if (r.context == context) {
                list.unlink(r);
                return r;
            }
        }
        return null;
    }

    /** Unlinks and returns any posted receive (tagged first), for flushing on close; null when none. */
    public Recv removeFirstPosted() {
        Recv r = postedTagged.head;
        if (r != null) {
            postedTagged.unlink(r);
            return r;
        }
        r = postedMsg.head;
        if (r != null) {
            postedMsg.unlink(r);
        }
        return r;
    }

    /**
     * Unlinks and returns a posted receive directed at {@code src} (FI_DIRECTED_RECV), or null when none:
     * what a provider fails when that peer is known to be gone. Receives from FI_ADDR_UNSPEC, and every
     * receive without FI_DIRECTED_RECV (any peer may fill it), stay posted.
     */
    public Recv removeFirstPostedFrom(long src) {
        if (src == Fabrics.ADDR_UNSPEC || !directed) {
            return null;
        }
        RecvList list = postedTagged;
        Recv r = list.head;
        while (r == null || r.src != src) {
            if (r != null) {
                r = r.next;
            } else if (list == postedTagged) {
                list = postedMsg; // the tagged queue has none: the untagged one next
                r = list.head;
            } else {
                return null;
            }
        }
        list.unlink(r);
        return r;
    }

    public int postedCount() {
        return postedTagged.size + postedMsg.size;
    }

    // ---- unexpected messages ---------------------------------------------------------------------

    /**
     * Queues a message no posted receive matched; returns its node for the provider to fill payload
     * fields, or null when the unexpected queue is full (apply backpressure).
     */
    public Unexpected addUnexpected(boolean tagged, long tag, long src, long len, long data, long flags) {
        Unexpected u = unexpPool.acquire();
        if (u == null) {
            return null;
        }
        u.reset();
        u.tagged = tagged;
        u.tag = tag;
        u.src = src;
        u.len = len;
        u.data = data;
        u.flags = flags;
        (tagged ? unexpTagged : unexpMsg).add(u);
        return u;
    }

    /**
     * FI_PEEK: the first unclaimed unexpected message a receive with (tag, ignore, src) would take, left
     * in the queue; null when none (the provider then writes an ENOMSG error completion).
     */
    public Unexpected findUnexpected(boolean tagged, long tag, long ignore, long src) {
        for (Unexpected u = (tagged ? unexpTagged : unexpMsg).head; u != null; u = u.next) {
            if (u.claimedBy == null && (!tagged || tagMatches(tag, ignore, u.tag)) && sourceMatches(src, u.src)) {
                return u;
            }
        }
        return null;
    }

    /** As {@link #findUnexpected}, unlinking the message: what a newly posted receive does first. */
    public Unexpected takeUnexpected(boolean tagged, long tag, long ignore, long src) {
        Unexpected u = findUnexpected(tagged, tag, ignore, src);
        if (u != null) {
            (u.tagged ? unexpTagged : unexpMsg).unlink(u);
        }
        return u;
    }

    /** FI_PEEK|FI_CLAIM: reserves {@code u} for a later FI_CLAIM receive with the same context. */
    public void claim(Unexpected u, Object context) {
        if (context == null) {
            throw new IllegalArgumentException("FI_CLAIM needs a context");
        }
        if (u.claimedBy != null && u.claimedBy != context) {
            throw new IllegalStateException("message already claimed by another context");
        }
        u.claimedBy = context;
    }

    /** FI_CLAIM receive: unlinks and returns the message claimed with {@code context}, or null. */
    public Unexpected takeClaimed(Object context) {
        if (context == null) {
            return null;
        }
        Unexpected u = findClaimed(unexpTagged, context);
        if (u == null) {
            u = findClaimed(unexpMsg, context);
        }
        if (u != null) {
            (u.tagged ? unexpTagged : unexpMsg).unlink(u);
        }
        return u;
    }

    private static Unexpected findClaimed(UnexpList list, Object context) {
        for (Unexpected u = list.head; u != null; u = u.next) {
            if (u.claimedBy == context) {
                return u;
            }
        }
        return null;
    }

    /**
     * Gives the queued messages whose source was unknown when they arrived (FI_ADDR_NOTAVAIL: the sender's
     * address was inserted into the AV after its message came) the fi_addr {@code resolve} finds for them now,
     * so a directed receive posted after the insert matches them, as libfabric's. Returns how many are still
     * unknown.
     */
    public int resolveUnknownSources(java.util.function.ToLongFunction<Unexpected> resolve) {
        return resolveUnknownSources(unexpTagged, resolve) + resolveUnknownSources(unexpMsg, resolve);
    }

    private static int resolveUnknownSources(UnexpList list, java.util.function.ToLongFunction<Unexpected> resolve) {
        int unknown = 0;
        for (Unexpected u = list.head; u != null; u = u.next) {
            if (u.src == Fabrics.ADDR_NOTAVAIL) {
                u.src = resolve.applyAsLong(u);
                if (u.src == Fabrics.ADDR_NOTAVAIL) {
                    unknown++;
                }
            }
        }
        return unknown;
    }

    /**
     * Walks the queued messages of one kind in arrival order, claimed ones included: the first when
     * {@code after} is null, else the one after it; null at the end. A provider drops the messages of a
     * connection that went away with it (unlink the current one only after taking its successor).
     */
    public Unexpected nextUnexpected(boolean tagged, Unexpected after) {
        return after == null ? (tagged ? unexpTagged : unexpMsg).head : after.next;
    }

    /** Unlinks a queued message (FI_DISCARD, or consumed by the provider after a peek). */
    public void removeUnexpected(Unexpected u) {
        if (u.linked) {
            (u.tagged ? unexpTagged : unexpMsg).unlink(u);
        }
    }

    /** Unlinks and returns any unexpected message (tagged first), for flushing on close; null when none. */
    public Unexpected removeFirstUnexpected() {
        Unexpected u = unexpTagged.head != null ? unexpTagged.head : unexpMsg.head;
        if (u != null) {
            removeUnexpected(u);
        }
        return u;
    }

    /** Returns an unlinked unexpected node to the pool (after the provider released its payload). */
    public void free(Unexpected u) {
        if (u == null) {
            return;
        }
        if (u.linked) {
            throw new IllegalStateException("free of an unexpected message still queued; remove it first");
        }
        u.reset();
        unexpPool.release(u);
    }

    public int unexpectedCount() {
        return unexpTagged.size + unexpMsg.size;
    }

    /** Room left in the unexpected queue. */
    public int unexpectedRoom() {
        return unexpPool.available();
    }

    @Override
    public String toString() {
        return "TagMatcher[posted tagged=" + postedTagged.size + " msg=" + postedMsg.size + ", unexpected tagged="
                + unexpTagged.size + " msg=" + unexpMsg.size + ", room=" + (unexpPool.available() == Integer.MAX_VALUE ? "grows" : unexpPool.available())
                + (directed ? ", directed" : "") + heads(" posted", postedTagged.head) + heads(" queued", unexpTagged.head)
                + "]";
    }

    /** The first few queue entries as tag@src, which is what a match that did not happen is debugged with. */
    private static String heads(String label, Object first) {
        StringBuilder b = new StringBuilder();
        int n = 0;
        for (Object o = first; o != null && n < 4; n++) {
            if (o instanceof Recv r) {
                b.append(' ').append(Long.toHexString(r.tag)).append('@').append(r.src);
                o = r.next;
            } else {
                Unexpected u = (Unexpected) o;
                b.append(' ').append(Long.toHexString(u.tag)).append('@').append(u.src);
                o = u.next;
            }
        }
        return n == 0 ? "" : "," + label + b;
    }
}
