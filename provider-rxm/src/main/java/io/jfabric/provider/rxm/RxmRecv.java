package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.provider.rxm.conn.RxmConnection;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.OpRequest;

/**
 * The receive side (libfabric's rxm_recv_queue work in rxm_msg.c, rxm_tagged.c and rxm_cq.c): posted
 * receives and unexpected messages, untagged and tagged; matching an arriving message to a receive (the
 * protocols call {@link #match} and {@link #queueUnexpected}) and a posted receive to an unexpected
 * message; FI_MULTI_RECV slicing; FI_PEEK, FI_CLAIM and FI_DISCARD; cancel; and the receive's completion.
 */
final class RxmRecv {
    private final RxmShared s;
    private final EndpointBindings bindings;
    private final RecvQueue recvQ;
    private final RecvQueue trecvQ;

    RxmRecv(RxmShared s) {
        this.s = s;
        this.bindings = s.bindings;
        boolean directed = s.directedRecv();
        recvQ = new RecvQueue(false, directed);
        trecvQ = new RecvQueue(true, directed);
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
        RecvQueue q = tagged ? trecvQ : recvQ;
        // no progress here (libfabric's rxm makes none either): a message still in the core is matched when the
        // next CQ read lands it, in order, and a progress pass per receive was a system call on the critical
        // path of every request-reply
        while (true) {
            Unexpected u = q.findUnexpected(filter, r.tag, e.ignore);
            if (u == null) {
                break;
            }
            q.removeUnexpected(u);
            RecvEntry target = multi ? carve(q, e, u.size, false) : e;
            deliverUnexpected(target, u);
            if (!multi || e.iov[0] == null) {
                return 0;
            }
            if (e.capacity - e.multiUsed < s.minMultiRecv) {
                return 0;
            }
        }
        q.post(e);
        return 0;
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
            u = trecvQ.findUnexpected(filter, r.tag, r.ignore);
            if (u == null) {
                bindings.reportRxUncounted(r.context, OpFlags.RECV | OpFlags.TAGGED, r.tag, Errno.ENOMSG, Errno.ENOMSG);
                return 0;
            }
            long cflags = OpFlags.RECV | OpFlags.TAGGED | (u.hasData ? OpFlags.REMOTE_CQ_DATA : 0);
            if ((flags & OpFlags.DISCARD) != 0) {
                trecvQ.removeUnexpected(u);
                if (!u.complete) {
                    unlinkActive(u.cd, u);
                }
                bindings.rxCq().writeFrom(r.context, cflags, u.size, 0, u.data, u.tag, u.src);
                discard(u);
                return 0;
            }
            if ((flags & OpFlags.CLAIM) != 0) {
                u.claimedBy = r.context;
            }
            bindings.rxCq().writeFrom(r.context, cflags, u.size, 0, u.data, u.tag, u.src);
            return 0;
        }
        u = trecvQ.findClaimed(r.context);
        if (u == null) {
            return -Errno.EINVAL;
        }
        trecvQ.removeUnexpected(u);
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
        RecvQueue q = trecvQ;
        RecvEntry e = q.findPostedByContext(context);
        if (e == null) {
            q = recvQ;
            e = q.findPostedByContext(context);
        }
        if (e == null) {
            return -Errno.ENOENT;
        }
        q.remove(e);
        reportCanceled(e);
        s.pools.releaseRecv(e);
        return 0;
    }

    /** Endpoint close: every posted receive completes with ECANCELED. */
    void cancelAll() {
        cancelPosted(recvQ);
        cancelPosted(trecvQ);
    }

    private void cancelPosted(RecvQueue q) {
        for (RecvEntry e = q.postedHead; e != null; ) {
            RecvEntry n = e.next;
            q.remove(e);
            reportCanceled(e);
            e = n;
        }
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
        RecvQueue q = tagged ? trecvQ : recvQ;
        RecvEntry e = q.findPosted(src, tag);
        if (e == null) {
            return null;
        }
        if (!e.multi) {
            q.remove(e);
            return e;
        }
        return carve(q, e, size, true);
    }

    /**
     * A slice of a multi-receive buffer for a message of {@code size} bytes; the buffer leaves the queue once
     * less than FI_OPT_MIN_MULTI_RECV is left.
     */
    private RecvEntry carve(RecvQueue q, RecvEntry parent, long size, boolean queued) {
        long left = parent.capacity - parent.multiUsed;
        long take = Math.min(size, left);
        RecvEntry child = s.pools.acquireRecv();
        child.iov[0] = parent.iov[0].asSlice(parent.multiUsed, take);
        child.count = 1;
        child.capacity = take;
        child.context = parent.context;
        child.opFlags = parent.opFlags;
        child.tagged = false;
        child.parent = parent;
        parent.multiUsed += take;
        if (parent.capacity - parent.multiUsed < s.minMultiRecv) {
            child.releasesParent = true;
            if (queued) {
                q.remove(parent);
            }
            parent.iov[0] = null;
        }
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
        s.rxBuffers.unexpBuffers++;
        (tagged ? trecvQ : recvQ).addUnexpected(u);
        return u;
    }

    /** A receive meets a message that arrived first: the message's protocol takes it from here. */
    private void deliverUnexpected(RecvEntry t, Unexpected u) {
        t.tagged = u.tagged;
        switch (u.kind) {
            case Unexpected.EAGER -> s.eager.deliverUnexpected(t, u);
            case Unexpected.SAR -> s.sar.deliverUnexpected(t, u);
            default -> s.rndv.deliverUnexpected(t, u);
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
    private void discard(Unexpected u) {
        if (u.kind == Unexpected.RNDV) {
            s.rndv.discard(u);
        }
        releaseUnexpected(u);
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

    /** Writes the receive's completion (ETRUNC error when the message did not fit) and frees it. */
    void complete(RecvEntry e, long msgSize, long copied, long tag, long data, boolean hasData, long src) {
        long flags = OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG)
                | (hasData ? OpFlags.REMOTE_CQ_DATA : 0) | (e.releasesParent ? OpFlags.MULTI_RECV : 0);
        long buf = e.parent != null ? e.iov[0].address() : 0;
        if (copied < msgSize) {
            bindings.reportRxTruncated(e.context, flags, copied, msgSize - copied, data, tag);
        } else {
            bindings.reportRx(e.context, e.opFlags, flags, copied, buf, data, tag, src);
        }
        RecvEntry parent = e.releasesParent ? e.parent : null;
        s.pools.releaseRecv(e);
        if (parent != null) {
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
        long flags = OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG)
                | (e.releasesParent ? OpFlags.MULTI_RECV : 0);
        bindings.reportRxError(e.context, flags, 0, e.msgTag, 0, errno, errno);
        if (release) {
            s.pools.releaseRecv(e);
        }
    }

    // ---- connection loss

    /** The connection of {@code cd} went down: receives landing from it fail, its partial messages go. */
    void connectionLost(ConnData cd, int errno) {
        failOrphaned(cd.activeRecv, errno);
        cd.activeRecv = null;
        failOrphaned(cd.rndvWait, errno);
        cd.rndvWait = null;
        for (Unexpected u = cd.activeUnexp; u != null; ) {
            Unexpected next = u.nextActive;
            (u.tagged ? trecvQ : recvQ).removeUnexpected(u);
            releaseUnexpected(u);
            u = next;
        }
        cd.activeUnexp = null;
        dropStaleRendezvous(recvQ, cd);
        dropStaleRendezvous(trecvQ, cd);
    }

    /**
     * Fails the receives of a list whose connection went down; they become orphans, never reused, since the
     * core may still complete reads into them.
     */
    private void failOrphaned(RecvEntry head, int errno) {
        for (RecvEntry re = head; re != null; ) {
            RecvEntry next = re.nextActive;
            re.orphan = true;
            fail(re, errno, false);
            re = next;
        }
    }

    /**
     * Unexpected rendezvous requests that came over a connection now gone: their data stays at the sender,
     * whose send failed with the connection and will be sent again, so they can never be received. Dropped
     * here, not matched later: a receive that took one failed with ECONNRESET for a message nobody lost, and
     * a failed receive reposted took the next stale one (a survivor's whole window failed over and over).
     */
    private void dropStaleRendezvous(RecvQueue q, ConnData cd) {
        for (Unexpected u = q.unexpHead; u != null; ) {
            Unexpected next = u.next;
            if (u.cd == cd && u.kind == Unexpected.RNDV && u.generation != cd.generation && u.claimedBy == null) {
                q.removeUnexpected(u);
                releaseUnexpected(u);
            }
            u = next;
        }
    }

    @Override
    public String toString() {
        return "unexpected msg " + recvQ.unexpCount + " tagged " + trecvQ.unexpCount + ", unexpected buffers "
                + s.rxBuffers.unexpBuffers + "\n  " + recvQ.describe() + "\n  " + trecvQ.describe();
    }
}
