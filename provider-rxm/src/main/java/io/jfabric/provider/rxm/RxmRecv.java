package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.OpRequest;
import io.jfabric.util.TagMatcher;

/**
 * The receive side (libfabric's rxm_recv_queue work in rxm_msg.c, rxm_tagged.c and rxm_cq.c) on
 * provider-util's {@link TagMatcher}, the one matcher every provider uses: it queues posted receives and
 * unexpected messages, untagged and tagged, and matches them; this class keeps what rxm adds. An arriving
 * message is matched to a receive (the protocols call {@link #match} and {@link #queueUnexpected}) and a
 * posted receive to an unexpected message; FI_MULTI_RECV slices the buffer into one receive per message;
 * FI_PEEK, FI_CLAIM and FI_DISCARD; cancel; and the receive's completion.
 */
final class RxmRecv {
    private final RxmShared s;
    private final EndpointBindings bindings;
    /**
     * Grows with the backlog: rxm bounds what unexpected messages hold by their receive buffers instead. A shared
     * receive context's ({@link #share}) when the endpoint is bound to one: then each queued message names the
     * endpoint it arrived on ({@link Unexpected#owner}), whose protocols deliver it and whose buffers it holds.
     */
    private TagMatcher matcher;
    private boolean shared;
    /** Per fi_addr, a peer whose connection was lost (FI_JF_PEER_FAILED): directed receives at it fail at once. */
    private boolean[] gone = new boolean[0];

    RxmRecv(RxmShared s) {
        this.s = s;
        this.bindings = s.bindings;
        matcher = new TagMatcher(s.directedRecv(), 16384);
    }

    /** fi_ep_bind of a shared receive context, before enable: its matcher replaces the endpoint's own. */
    void share(TagMatcher sharedMatcher) {
        matcher = sharedMatcher;
        shared = true;
    }

    /** FI_OPT_MIN_MULTI_RECV. */
    long minMultiRecv() {
        return matcher.minMultiRecv();
    }

    void setMinMultiRecv(long bytes) {
        matcher.setMinMultiRecv(bytes);
    }

    // ---- posting

    /** rxm_recv_common: a receive, matched first against what arrived unexpected. */
    int post(boolean tagged, OpRequest r) {
        if (!s.enabled || s.closed) {
            return -Errno.EOPBADSTATE;
        }
        int count = r.count;
        if (count > RndvHeader.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        boolean multi = (r.flags & OpFlags.MULTI_RECV) != 0;
        if (multi && (tagged || count != 1)) {
            return -Errno.EINVAL;
        }
        long filter = s.directedRecv() ? r.peer : Fabrics.ADDR_UNSPEC;
        RecvEntry e = take(r);
        e.srcAddr = filter;
        e.tag = r.tag;
        e.ignore = tagged ? r.ignore : 0;
        e.tagged = tagged;
        e.multi = multi;
        if (multi) {
            e.node = node(e); // a multi-receive's node counts what its buffer gave out, before it is posted too
        }
        // no progress here (libfabric's rxm makes none either): a message still in the core is matched when the
        // next CQ read lands it, in order, and a progress pass per receive was a system call on the critical
        // path of every request-reply
        while (true) {
            TagMatcher.Unexpected n = matcher.takeUnexpected(tagged, r.tag, e.ignore, filter);
            if (n == null) {
                break;
            }
            Unexpected u = detach(n);
            RecvEntry target = multi ? carve(e, u.size) : e;
            // read before the delivery, which may complete the slice that frees a used-up buffer
            boolean usedUp = !multi || e.node.released;
            deliverUnexpected(target, u);
            if (usedUp) {
                return 0; // taken whole, or a multi-receive buffer used up
            }
        }
        if (filter != Fabrics.ADDR_UNSPEC && isGone(filter)) {
            // nothing will come from a peer known gone: the receive fails now instead of waiting forever
            if (e.node != null && holdWhileSlicesLand(e.node)) {
                fail(e, Errno.ECONNRESET, false);
                return 0;
            }
            if (e.node != null) {
                detach(e.node);
            }
            fail(e, Errno.ECONNRESET, true);
            return 0;
        }
        if (e.node == null) {
            e.node = node(e);
        }
        matcher.post(e.node);
        return 0;
    }

    /** Whether {@code fiAddr} lost its connection and has not connected again: one array read. */
    private boolean isGone(long fiAddr) {
        boolean[] g = gone;
        return fiAddr >= 0 && fiAddr < g.length && g[(int) fiAddr];
    }

    /** {@code fiAddr}'s connection was lost ({@code isGone}) or came up again. */
    void markGone(long fiAddr, boolean isGone) {
        if (fiAddr < 0 || fiAddr > Integer.MAX_VALUE - 8 || !isGone && fiAddr >= gone.length) {
            return;
        }
        if (fiAddr >= gone.length) {
            gone = java.util.Arrays.copyOf(gone, (int) Math.max(fiAddr + 1, gone.length * 2L));
        }
        gone[(int) fiAddr] = isGone;
    }

    /** The matcher's node for receive {@code e}, pointing back at it. */
    private TagMatcher.Recv node(RecvEntry e) {
        TagMatcher.Recv n = matcher.newRecv();
        n.context = e.context;
        n.tagged = e.tagged;
        n.tag = e.tag;
        n.ignore = e.ignore;
        n.src = e.srcAddr;
        n.flags = e.opFlags;
        n.length = e.capacity;
        n.state = e;
        return n;
    }

    /** A pool entry holding the request's buffers, context and flags. */
    private RecvEntry take(OpRequest r) {
        RecvEntry e = s.pools.acquireRecv();
        for (int i = 0; i < r.count; i++) {
            e.iov[i] = r.iov[i];
            e.desc[i] = r.desc == null ? null : r.desc[i];
        }
        e.count = r.count;
        e.capacity = IovCursor.length(r.iov, r.count);
        e.context = r.context;
        e.opFlags = r.flags;
        return e;
    }

    /** rxm_peek_recv and FI_CLAIM: look at, reserve, take or drop an unexpected tagged message. */
    int peekClaim(OpRequest r) {
        if (!s.enabled || s.closed) {
            return -Errno.EOPBADSTATE;
        }
        long flags = r.flags;
        long filter = s.directedRecv() ? r.peer : Fabrics.ADDR_UNSPEC;
        Unexpected u;
        if ((flags & OpFlags.PEEK) != 0) {
            s.progress.run();
            TagMatcher.Unexpected n = matcher.findUnexpected(true, r.tag, r.ignore, filter);
            if (n == null) {
                bindings.reportRxUncounted(r.context, OpFlags.RECV | OpFlags.TAGGED, r.tag, Errno.ENOMSG, Errno.ENOMSG);
                return 0;
            }
            u = (Unexpected) n.payload;
            long cflags = OpFlags.RECV | OpFlags.TAGGED | (u.hasData ? OpFlags.REMOTE_CQ_DATA : 0);
            if ((flags & OpFlags.DISCARD) != 0) {
                detach(n);
                if (!u.complete) {
                    unlinkActive(u.cd, u);
                }
                bindings.rxCq().writeFrom(r.context, cflags, u.size, 0, u.data, u.tag, u.src);
                discard(u);
                return 0;
            }
            if ((flags & OpFlags.CLAIM) != 0) {
                matcher.claim(n, r.context);
            }
            bindings.rxCq().writeFrom(r.context, cflags, u.size, 0, u.data, u.tag, u.src);
            return 0;
        }
        TagMatcher.Unexpected claimed = matcher.takeClaimed(r.context);
        if (claimed == null) {
            return -Errno.EINVAL;
        }
        u = detach(claimed);
        if ((flags & OpFlags.DISCARD) != 0) {
            if (!u.complete) {
                unlinkActive(u.cd, u);
            }
            bindings.rxCq().writeFrom(r.context, OpFlags.RECV | OpFlags.TAGGED, 0, 0, u.data, u.tag, u.src);
            discard(u);
            return 0;
        }
        RecvEntry e = take(r);
        e.tagged = true;
        deliverUnexpected(e, u);
        return 0;
    }

    /** fi_cancel of a posted receive. */
    int cancel(Object context) {
        TagMatcher.Recv n = matcher.cancel(context);
        if (n == null) {
            return -Errno.ENOENT;
        }
        RecvEntry e = (RecvEntry) n.state;
        reportCanceled(e);
        if (!holdWhileSlicesLand(n)) {
            detach(n);
            s.pools.releaseRecv(e);
        }
        return 0;
    }

    /**
     * Endpoint close: every posted receive completes with ECANCELED, unless it is a shared receive context's, which
     * stays posted for its other endpoints; the messages queued there that arrived here go with this endpoint.
     */
    void cancelAll() {
        if (!shared) {
            TagMatcher.Recv n;
            while ((n = matcher.removeFirstPosted()) != null) {
                reportCanceled((RecvEntry) n.state);
                if (!holdWhileSlicesLand(n)) {
                    detach(n);
                }
            }
            return;
        }
        for (int kind = 0; kind < 2; kind++) {
            for (TagMatcher.Unexpected n = matcher.nextUnexpected(kind == 0, null); n != null; ) {
                TagMatcher.Unexpected next = matcher.nextUnexpected(kind == 0, n);
                if (((Unexpected) n.payload).owner == this) {
                    releaseUnexpected(detach(n));
                }
                n = next;
            }
        }
    }

    /** A peer is gone: the receives directed at {@code fiAddr} (FI_DIRECTED_RECV) fail; returns how many. */
    int failDirectedAt(long fiAddr, int errno) {
        int n = 0;
        TagMatcher.Recv r;
        while ((r = matcher.removeFirstPostedFrom(fiAddr)) != null) {
            if (holdWhileSlicesLand(r)) {
                fail((RecvEntry) r.state, errno, false);
            } else {
                fail(detach(r), errno, true);
            }
            n++;
        }
        return n;
    }

    /**
     * A multi-receive buffer leaves the matcher (cancelled, or its peer gone) while messages are still landing in
     * it: it stays, marked released, and the last of them frees it (true); false when nothing is landing.
     */
    private static boolean holdWhileSlicesLand(TagMatcher.Recv n) {
        if (n.slicesInFlight == 0) {
            return false;
        }
        n.released = true;
        return true;
    }

    /**
     * Receive {@code e} is done: when it is the last slice to land in a released multi-receive buffer, that buffer
     * (which its completion releases), else null.
     */
    private static RecvEntry releasedBy(RecvEntry e) {
        if (e.parent == null) {
            return null;
        }
        TagMatcher.Recv n = e.parent.node;
        n.slicesInFlight--;
        return n.released && n.slicesInFlight == 0 ? e.parent : null;
    }

    /** The receive of an unlinked node, the node back to the matcher. */
    private RecvEntry detach(TagMatcher.Recv n) {
        RecvEntry e = (RecvEntry) n.state;
        e.node = null;
        matcher.free(n);
        return e;
    }

    private void reportCanceled(RecvEntry e) {
        bindings.reportRxUncounted(e.context, OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG), e.tag,
                Errno.ECANCELED, Errno.ECANCELED);
    }

    // ---- matching

    /**
     * The posted receive that takes a message of {@code size} bytes from {@code src} with {@code tag}, taken
     * off its queue (for FI_MULTI_RECV, a slice of it); null when none is posted.
     */
    RecvEntry match(boolean tagged, long src, long tag, long size) {
        TagMatcher.Recv n = matcher.matchPosted(tagged, tag, src);
        if (n == null) {
            return null;
        }
        RecvEntry e = (RecvEntry) n.state;
        return e.multi ? carve(e, size) : detach(n);
    }

    /**
     * A slice of a multi-receive buffer for a message of {@code size} bytes; the buffer leaves the matcher
     * once less than FI_OPT_MIN_MULTI_RECV is left, and the last slice to land after that releases it (a
     * rendezvous slice can land after slices carved later).
     */
    private RecvEntry carve(RecvEntry parent, long size) {
        TagMatcher.Recv n = parent.node;
        long at = matcher.consumeMultiRecv(n, size);
        n.slicesInFlight++;
        RecvEntry child = s.pools.acquireRecv();
        child.iov[0] = parent.iov[0].asSlice(at, n.consumed - at);
        child.count = 1;
        child.capacity = n.consumed - at;
        child.context = parent.context;
        child.opFlags = parent.opFlags;
        child.tagged = false;
        child.parent = parent;
        return child;
    }

    /** A message no receive was posted for: it keeps its buffer {@code rx} until one is. */
    Unexpected queueUnexpected(int kind, RxBuf rx, RxmConnection<Endpoint> c, ConnData cd, long off, long len,
                               long size, boolean tagged, long tag, long data, boolean hasData, long src) {
        Unexpected u = s.pools.acquireUnexpected();
        u.kind = kind;
        u.first = rx;
        u.offset = off;
        u.firstLen = len;
        u.size = size;
        u.tagged = tagged;
        u.tag = tag;
        u.data = data;
        u.hasData = hasData;
        u.src = src;
        u.conn = c;
        u.cd = cd;
        u.generation = cd.generation;
        u.complete = kind != Unexpected.SAR;
        u.buffers = 1;
        u.owner = this;
        s.rxBuffers.unexpBuffers++;
        u.node = matcher.addUnexpected(tagged, tag, src, size, data, hasData ? OpFlags.REMOTE_CQ_DATA : 0);
        u.node.payload = u;
        return u;
    }

    /** The message of a node the matcher no longer queues (or unlinks it now), the node back to the matcher. */
    private Unexpected detach(TagMatcher.Unexpected n) {
        Unexpected u = (Unexpected) n.payload;
        matcher.removeUnexpected(n);
        matcher.free(n);
        u.node = null;
        return u;
    }

    /**
     * A receive meets a message that arrived first: the message's protocol, on the endpoint it arrived on, takes it
     * from here.
     */
    private void deliverUnexpected(RecvEntry t, Unexpected u) {
        t.tagged = u.tagged;
        RxmShared o = u.owner.s;
        switch (u.kind) {
            case Unexpected.EAGER -> o.eager.deliverUnexpected(t, u);
            case Unexpected.SAR -> o.sar.deliverUnexpected(t, u);
            default -> o.rndv.deliverUnexpected(t, u);
        }
    }

    /** Returns the message's buffers to their connections and the entry to the pool. */
    void releaseUnexpected(Unexpected u) {
        RxBuf first = u.first;
        RxBuf seg = u.segHead;
        s.rxBuffers.unexpBuffers -= u.buffers;
        s.pools.releaseUnexpected(u);
        if (first != null) {
            s.rxBuffers.repost(first);
        }
        while (seg != null) {
            RxBuf n = seg.next;
            seg.next = null;
            s.rxBuffers.repost(seg);
            seg = n;
        }
    }

    /** Drops an unexpected message; a rendezvous one still tells its sender the buffer is free. */
    private static void discard(Unexpected u) {
        RxmRecv o = u.owner;
        if (u.kind == Unexpected.RNDV) {
            o.s.rndv.discard(u);
        }
        o.releaseUnexpected(u);
    }

    /** Takes {@code u} off its connection's list of SAR messages still arriving. */
    static void unlinkActive(ConnData cd, Unexpected u) {
        Unexpected prev = null;
        for (Unexpected x = cd.activeUnexp; x != null; prev = x, x = x.nextActive) {
            if (x == u) {
                if (prev == null) {
                    cd.activeUnexp = x.nextActive;
                } else {
                    prev.nextActive = x.nextActive;
                }
                u.nextActive = null;
                return;
            }
        }
    }

    // ---- completion

    /**
     * Writes the receive's completion (ETRUNC error when the message did not fit; with FI_SOURCE_ERR, an
     * EADDRNOTAVAIL error carrying the address of a sender {@code from} the AV does not hold) and frees it.
     */
    void complete(RecvEntry e, long msgSize, long copied, long tag, long data, boolean hasData, long src,
                  RxmConnection<Endpoint> from) {
        RecvEntry releases = releasedBy(e);
        long flags = OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG)
                | (hasData ? OpFlags.REMOTE_CQ_DATA : 0) | (releases != null ? OpFlags.MULTI_RECV : 0);
        long buf = e.parent != null ? e.iov[0].address() : 0;
        if (copied < msgSize) {
            bindings.reportRxTruncated(e.context, flags, copied, msgSize - copied, data, tag);
        } else if (src == Fabrics.ADDR_NOTAVAIL && s.sourceErr && from != null) {
            bindings.reportRxSourceError(false, e.context, flags, copied, buf, data, tag, from.peer().addr());
        } else {
            bindings.reportRx(e.context, e.opFlags, flags, copied, buf, data, tag, src);
        }
        s.pools.releaseRecv(e);
        releaseBuffer(releases);
    }

    /** The multi-receive buffer {@code parent} (null for none) back to the matcher and the pool. */
    private void releaseBuffer(RecvEntry parent) {
        if (parent != null) {
            detach(parent.node);
            s.pools.releaseRecv(parent);
        }
    }

    /** The receive fails with {@code errno}; {@code release} frees it (not when it is orphaned with its connection). */
    void fail(RecvEntry e, int errno, boolean release) {
        RxmPools.closeMrs(e.mrs, e.mrCount);
        e.mrCount = 0;
        if (e.rndvReq != null) {
            RxBuf rx = e.rndvReq;
            e.rndvReq = null;
            s.rxBuffers.repost(rx);
        }
        RecvEntry releases = releasedBy(e);
        long flags = OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG)
                | (releases != null ? OpFlags.MULTI_RECV : 0);
        bindings.reportRxError(e.context, flags, 0, e.msgTag, 0, errno, errno);
        if (release) {
            s.pools.releaseRecv(e);
        }
        releaseBuffer(releases);
    }

    // ---- connection loss

    /** The connection of {@code cd} went down: receives landing from it fail, its partial messages go; returns how many receives failed. */
    int connectionLost(ConnData cd, int errno) {
        int n = failOrphaned(cd.activeRecv, errno);
        cd.activeRecv = null;
        n += failOrphaned(cd.rndvWait, errno);
        cd.rndvWait = null;
        for (Unexpected u = cd.activeUnexp; u != null; ) {
            Unexpected next = u.nextActive;
            if (u.node != null) {
                detach(u.node);
            }
            releaseUnexpected(u);
            u = next;
        }
        cd.activeUnexp = null;
        dropStaleRendezvous(false, cd);
        dropStaleRendezvous(true, cd);
        return n;
    }

    /**
     * Fails the receives of a list whose connection went down; they become orphans, never reused, since the
     * core may still complete reads into them.
     */
    private int failOrphaned(RecvEntry head, int errno) {
        int n = 0;
        for (RecvEntry re = head; re != null; ) {
            RecvEntry next = re.nextActive;
            re.orphan = true;
            fail(re, errno, false);
            re = next;
            n++;
        }
        return n;
    }

    /**
     * Unexpected rendezvous requests that came over a connection now gone: their data stays at the sender,
     * whose send failed with the connection and will be sent again, so they can never be received. Dropped
     * here, not matched later: a receive that took one failed with ECONNRESET for a message nobody lost, and
     * a failed receive reposted took the next stale one (a survivor's whole window failed over and over).
     */
    private void dropStaleRendezvous(boolean tagged, ConnData cd) {
        for (TagMatcher.Unexpected n = matcher.nextUnexpected(tagged, null); n != null; ) {
            TagMatcher.Unexpected next = matcher.nextUnexpected(tagged, n);
            Unexpected u = (Unexpected) n.payload;
            if (u.cd == cd && u.kind == Unexpected.RNDV && u.generation != cd.generation && n.claimedBy() == null) {
                releaseUnexpected(detach(n));
            }
            n = next;
        }
    }

    @Override
    public String toString() {
        return "unexpected buffers " + s.rxBuffers.unexpBuffers + ", " + matcher + (shared ? " (shared)" : "");
    }
}
