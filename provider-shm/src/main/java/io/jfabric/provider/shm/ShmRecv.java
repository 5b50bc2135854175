package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;
import io.jfabric.util.TagMatcher;

import java.lang.foreign.MemorySegment;

/**
 * The receive side of one endpoint: the matching of every message arriving on it (whatever its protocol) against
 * its receive context ({@link ShmRxQueue}: its own, or a shared receive context's), the messages it queues there, and
 * the completions of receives its messages land in. Each unexpected message's payload is a pooled
 * {@link UnexpectedMessage} of this endpoint.
 */
final class ShmRecv {
    private final ShmEndpointState ep;
    private final ShmAckQueue acks;
    private final ShmCm cm;
    private final ShmCma cma;
    private final ShmPull pull;
    /** The endpoint's own receive context, or the shared one it is bound to ({@link #share}). */
    private ShmRxQueue queue;
    private boolean shared;
    private final UnexpectedMessage[] unexpectedPool;
    private int unexpectedPoolFree;
    /** FI_SOURCE with FI_SOURCE_ERR: a message from a sender not in the AV completes as an EADDRNOTAVAIL error. */
    private final boolean sourceErr;

    ShmRecv(ShmEndpointState ep, ShmInFlight inFlight, ShmAckQueue acks, ShmCm cm, ShmCma cma, int rxSize,
            int unexpected, boolean directed, boolean sourceErr) {
        this.ep = ep;
        this.sourceErr = sourceErr;
        this.acks = acks;
        this.cm = cm;
        this.cma = cma;
        this.queue = new ShmRxQueue(rxSize, unexpected, directed);
        this.pull = new ShmPull(ep, inFlight, acks, cm, this, rxSize);
        unexpectedPool = new UnexpectedMessage[unexpected];
        for (int i = 0; i < unexpected; i++) {
            unexpectedPool[i] = new UnexpectedMessage(ep.arena.allocate(ep.slotSize, 64));
        }
        unexpectedPoolFree = unexpected;
    }

    /** fi_ep_bind of a shared receive context, before enable: its queue replaces the endpoint's own. */
    void share(ShmRxQueue sharedQueue) {
        queue = sharedQueue;
        shared = true;
    }

    /** fi_enable: the receive context learns (or checks) the endpoint's receive CQ and AV. */
    void enable() {
        queue.attach(ep.rxCq, ep.av);
    }

    void watchPeers(ShmPeerWatch watch) {
        queue.watchPeers(watch);
    }

    ShmPull pull() {
        return pull;
    }

    int rxSize() {
        return queue.rxSize();
    }

    long minMultiRecv() {
        return queue.matcher.minMultiRecv();
    }

    void setMinMultiRecv(long bytes) {
        queue.matcher.setMinMultiRecv(bytes);
    }

    // ---- posting -------------------------------------------------------------------------------

    /** Posts a receive on the endpoint's receive context (the shared one when bound to one). */
    int post(OpRequest req, boolean tagged, boolean multi) {
        return queue.post(req, tagged, multi);
    }

    /** fi_cancel: the posted receive with this context completes with ECANCELED. */
    int cancel(Object context) {
        return queue.cancel(context);
    }

    /** A peer is gone: the receives directed at {@code fiAddr} on this endpoint's receive context fail. */
    int failDirectedAt(long fiAddr, int errno) {
        return queue.failDirectedAt(fiAddr, errno);
    }

    /**
     * Endpoint close: every queued message that arrived here is refused to its sender; the posted receives are
     * cancelled, unless they are a shared context's, which stay posted for its other endpoints.
     */
    void cancelAll() {
        if (!shared) {
            queue.cancelPosted();
        }
        TagMatcher matcher = queue.matcher;
        for (int kind = 0; kind < 2; kind++) {
            TagMatcher.Unexpected u = matcher.nextUnexpected(kind == 0, null);
            while (u != null) {
                TagMatcher.Unexpected next = matcher.nextUnexpected(kind == 0, u);
                UnexpectedMessage m = (UnexpectedMessage) u.payload;
                if (m.owner == this) {
                    if ((m.type == Wire.CMA || m.type == Wire.RTS) && m.peer != null) {
                        acks.send(m.peer, m.opId, Errno.ECANCELED);
                    }
                    matcher.removeUnexpected(u);
                    freeUnexpected(u);
                }
                u = next;
            }
        }
    }

    /**
     * FI_DISCARD of a queued message that arrived on this endpoint (already off the matcher's queue): a CMA or pulled
     * one is ACKed as taken, so its send completes; its bytes are never read.
     */
    void discardUnexpected(TagMatcher.Unexpected u) {
        UnexpectedMessage m = (UnexpectedMessage) u.payload;
        if ((m.type == Wire.CMA || m.type == Wire.RTS) && m.peer != null) {
            acks.send(m.peer, m.opId, 0);
        }
        freeUnexpected(u);
    }

    /** FI_PEEK, FI_CLAIM, FI_DISCARD (fi_tagged(3)) on the endpoint's receive context. */
    int peekOrClaim(OpRequest req) {
        return queue.peekOrClaim(req);
    }

    /** Returns a queued message that arrived on this endpoint, taken or dropped, to the pools. */
    void freeUnexpected(TagMatcher.Unexpected u) {
        UnexpectedMessage m = (UnexpectedMessage) u.payload;
        m.clear();
        unexpectedPool[unexpectedPoolFree++] = m;
        queue.matcher.free(u);
    }

    // ---- arriving messages -----------------------------------------------------------------------

    /** An INLINE, BOUNCE, CMA or RTS command. Returns false to leave it in the ring (no room to queue it). */
    boolean onMessage(int type, MemorySegment s, long at, int length) {
        long sender = Wire.getLong(s, at + Wire.SENDER);
        int wflags = Wire.getInt(s, at + Wire.FLAGS);
        long len = type == Wire.INLINE ? Wire.getInt(s, at + Wire.INLINE_LENGTH) : Wire.getLong(s, at + Wire.LENGTH);
        long tag = Wire.getLong(s, at + Wire.TAG);
        boolean tagged = (wflags & Wire.FLAG_TAGGED) != 0;
        if (!tagged) {
            tag = 0;
        }
        Peer peer = type == Wire.INLINE ? null : cm.sender(sender);
        // validate sizes against what the protocol allows before touching any memory
        // an inline record may be as long as the ring allows, but no honest sender inlines more than a bounce
        // slot, which is what an unexpected message's buffer holds
        if (len < 0 || (type == Wire.INLINE && (len > length - Wire.INLINE_HEADER || len > ep.slotSize))
                || (type == Wire.BOUNCE && (len > ep.slotSize || peer == null || !ShmBounce.validSlot(peer, s, at)))
                || ((type == Wire.CMA || type == Wire.RTS) && peer == null)) {
            if (type == Wire.BOUNCE && peer != null && ShmBounce.validSlot(peer, s, at)) {
                ShmBounce.discard(peer, s, at);
            }
            if ((type == Wire.CMA || type == Wire.RTS) && peer != null) {
                acks.send(peer, Wire.getLong(s, at + Wire.OP_ID), Errno.EINVAL);
            }
            return ep.dropCorrupt(type, length);
        }
        long srcAddr = ep.av == null ? Fabrics.ADDR_NOTAVAIL : ep.av.addrOfSender(sender);
        TagMatcher.Recv r = queue.matcher.matchPosted(tagged, tag, srcAddr);
        if (r == null) {
            return queueUnexpected(type, s, at, peer, sender, srcAddr, tagged, tag, wflags, len);
        }
        long offset = r.consumed;
        long n = Math.min(len, r.length - offset);
        long data = Wire.getLong(s, at + Wire.DATA);
        if (type == Wire.RTS) {
            pull.start(r, peer, Wire.getLong(s, at + Wire.OP_ID), len, n, data, wflags, tag, srcAddr);
            return true;
        }
        int status = copyOut(type, s, at, peer, r.buffer, offset, n);
        if (type == Wire.CMA) {
            acks.send(peer, Wire.getLong(s, at + Wire.OP_ID), status);
        }
        completeReceive(r, status, len, n, data, wflags, tag, srcAddr, sender);
        return true;
    }

    /** Copies {@code n} bytes of an INLINE, BOUNCE or CMA message into {@code dst}; returns 0 or a positive errno. */
    private int copyOut(int type, MemorySegment s, long at, Peer peer, Object dst, long offset, long n) {
        switch (type) {
            case Wire.INLINE -> {
                ShmInline.copyOut(s, at, dst, offset, n);
                return 0;
            }
            case Wire.BOUNCE -> {
                ShmBounce.copyOut(peer, s, at, dst, offset, n);
                return 0;
            }
            default -> {
                return cma.copyOut(peer, Wire.getLong(s, at + Wire.OP_ID), ShmCma.remoteAddress(s, at), dst, offset, n);
            }
        }
    }

    private boolean queueUnexpected(int type, MemorySegment s, long at, Peer peer, long sender, long srcAddr,
                                    boolean tagged, long tag, int wflags, long len) {
        if (unexpectedPoolFree == 0) {
            return false; // back-pressure: leave it in the ring until a receive is posted
        }
        TagMatcher.Unexpected u = queue.matcher.addUnexpected(tagged, tag, srcAddr, len, Wire.getLong(s, at + Wire.DATA),
                wflags);
        if (u == null) {
            return false;
        }
        UnexpectedMessage m = unexpectedPool[--unexpectedPoolFree];
        u.payload = m;
        m.owner = this;
        m.senderId = sender;
        if (srcAddr == Fabrics.ADDR_NOTAVAIL && ep.av != null) {
            queue.unknownSources++;
        }
        m.type = type;
        m.peer = peer;
        boolean inline = type == Wire.INLINE; // the short header has no op id or address
        m.opId = inline ? 0 : Wire.getLong(s, at + Wire.OP_ID);
        m.remoteAddress = inline ? 0 : Wire.getLong(s, at + Wire.ADDRESS);
        if (type != Wire.CMA && type != Wire.RTS) {
            copyOut(type, s, at, peer, m.buffer, 0, len); // frees the ring record and the bounce slot now
        }
        return true;
    }

    /**
     * A receive being posted met a queued message (already off the matcher's queue). Returns whether the
     * receive is used up (a normal one always; a multi-receive buffer once released).
     */
    boolean deliverUnexpected(TagMatcher.Recv r, TagMatcher.Unexpected u) {
        UnexpectedMessage m = (UnexpectedMessage) u.payload;
        long offset = r.consumed;
        long n = Math.min(u.len, r.length - offset);
        int wflags = (int) u.flags;
        int status = 0;
        if (m.type == Wire.RTS) {
            pull.start(r, m.peer, m.opId, u.len, n, u.data, wflags, u.tag, u.src);
            return !r.isMultiRecv() || r.released;
        }
        if (m.type == Wire.CMA) {
            status = cma.copyOut(m.peer, m.opId, m.remoteAddress, r.buffer, offset, n);
            acks.send(m.peer, m.opId, status);
        } else if (n > 0) {
            ShmIov.scatter(m.buffer, 0, r.buffer, offset, n);
        }
        completeReceive(r, status, u.len, n, u.data, wflags, u.tag, u.src, m.senderId);
        return !r.isMultiRecv() || r.released;
    }

    // ---- completions -------------------------------------------------------------------------------

    /**
     * Writes the completion of a message placed in receive {@code r} ({@code n} of its {@code len} bytes at
     * {@code r.consumed}). A normal receive is off the matcher's queue already and is recycled; a
     * multi-receive buffer advances and is recycled once the matcher has released it.
     */
    void completeReceive(TagMatcher.Recv r, int status, long len, long n, long data, int wflags, long tag,
                         long srcAddr, long sender) {
        if (!r.isMultiRecv()) {
            finishReceive(r, status, len, n, data, wflags, tag, srcAddr, sender);
            return;
        }
        long at = queue.matcher.consumeMultiRecv(r, n);
        writeSlice(r, at, status, len, n, data, wflags, tag, srcAddr, sender);
    }

    /** Takes the next {@code n} bytes of multi-receive buffer {@code r} for a message still to be pulled into it. */
    long takeSlice(TagMatcher.Recv r, long n) {
        r.slicesInFlight++;
        return queue.matcher.consumeMultiRecv(r, n);
    }

    /** A pulled message is in its slice of multi-receive buffer {@code r}, at {@code at} (from {@link #takeSlice}). */
    void completeSlice(TagMatcher.Recv r, long at, int status, long len, long n, long data, int wflags, long tag,
                       long srcAddr, long sender) {
        r.slicesInFlight--;
        writeSlice(r, at, status, len, n, data, wflags, tag, srcAddr, sender);
    }

    /**
     * The completion of a message placed at {@code at} in multi-receive buffer {@code r}. The buffer's last one,
     * written once it is released and no message is still landing in it, carries FI_MULTI_RECV and recycles it.
     */
    private void writeSlice(TagMatcher.Recv r, long at, int status, long len, long n, long data, int wflags, long tag,
                            long srcAddr, long sender) {
        long flags = ShmRxQueue.flagsOf(r) | ((wflags & Wire.FLAG_CQ_DATA) != 0 ? OpFlags.REMOTE_CQ_DATA : 0);
        long bufAddr = ShmIov.address(r.buffer);
        if (bufAddr != 0) {
            bufAddr += at;
        }
        boolean last = r.released && r.slicesInFlight == 0;
        flags |= last ? OpFlags.MULTI_RECV : 0;
        if (status != 0 || n < len) {
            int err = status != 0 ? status : Errno.ETRUNC;
            ep.bindings.reportRxError(false, r.context, flags, n, bufAddr, data, tag, len - n, err, err);
        } else if (srcAddr == Fabrics.ADDR_NOTAVAIL && sourceErr) {
            ep.bindings.reportRxSourceError(false, r.context, flags, n, bufAddr, data, tag, addressOf(sender));
        } else {
            ep.bindings.reportRx(true, false, r.context, flags, n, bufAddr, data, tag, srcAddr);
        }
        if (last) {
            queue.cq().cancelReservation();
            queue.free(r);
        }
    }

    /** Writes the completion of a (non-multi) receive no longer queued, and recycles it. */
    void finishReceive(TagMatcher.Recv r, int status, long len, long n, long data, int wflags, long tag,
                       long srcAddr, long sender) {
        long flags = ShmRxQueue.flagsOf(r) | ((wflags & Wire.FLAG_CQ_DATA) != 0 ? OpFlags.REMOTE_CQ_DATA : 0);
        long bufAddr = ShmIov.address(r.buffer);
        if (status != 0) {
            ep.bindings.reportRxError(true, r.context, flags, n, bufAddr, data, tag, 0, status, status);
        } else if (n < len) {
            ep.bindings.reportRxError(true, r.context, flags, n, bufAddr, data, tag, len - n, Errno.ETRUNC,
                    Errno.ETRUNC);
        } else if (srcAddr == Fabrics.ADDR_NOTAVAIL && sourceErr) {
            ep.bindings.reportRxSourceError(true, r.context, flags, n, bufAddr, data, tag, addressOf(sender));
        } else {
            ep.bindings.reportRx(true, true, r.context, flags, n, bufAddr, data, tag, srcAddr);
        }
        queue.free(r);
    }

    /** FI_SOURCE_ERR's err_data: the sender's address as av.insert takes it, or null when it is gone. */
    private byte[] addressOf(long sender) {
        Peer p = cm.sender(sender);
        return p == null ? null : p.avAddress();
    }

    @Override
    public String toString() {
        return queue + (shared ? " (shared)" : "");
    }

    /** Chunks this endpoint copied into bounce slots for the receivers that pulled its messages. */
    long chunksServed() {
        return pull.chunksServed;
    }

    long pullsBlocked() {
        return pull.pullsBlocked;
    }
}
