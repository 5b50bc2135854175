package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;
import io.jfabric.util.TagMatcher;

import java.lang.foreign.MemorySegment;

/**
 * The receive side: posted receives and unexpected messages on provider-util's {@link TagMatcher}, the
 * matching of every arriving message (whatever its protocol), and receive completions. Each unexpected
 * message's payload is a pooled {@link UnexpectedMessage}.
 */
final class ShmRecv {
    private final ShmEndpointState ep;
    private final ShmAckQueue acks;
    private final ShmCm cm;
    private final ShmCma cma;
    private final ShmPull pull;
    private final TagMatcher matcher;
    private final int rxSize;
    private final UnexpectedMessage[] unexpectedPool;
    private int unexpectedPoolFree;
    /** Buffer lists of receives posted with more than one buffer. */
    private final ShmIov[] iovPool;
    private int iovPoolFree;
    /** Queued messages that came before their sender's address was in the AV (at most: some may be gone). */
    private int unknownSources;
    /** FI_SOURCE with FI_SOURCE_ERR: a message from a sender not in the AV completes as an EADDRNOTAVAIL error. */
    private final boolean sourceErr;
    /** FI_DIRECTED_RECV: a receive names its source, so one directed at a peer known gone fails at once. */
    private final boolean directed;
    /** Set once by the endpoint (the watch is made after this): which peers are known gone. */
    private ShmPeerWatch peerWatch;
    private final java.util.function.ToLongFunction<TagMatcher.Unexpected> sourceOfUnexpected;

    ShmRecv(ShmEndpointState ep, ShmInFlight inFlight, ShmAckQueue acks, ShmCm cm, ShmCma cma, int rxSize,
            int unexpected, boolean directed, boolean sourceErr) {
        this.ep = ep;
        this.sourceErr = sourceErr;
        this.acks = acks;
        this.cm = cm;
        this.cma = cma;
        this.rxSize = rxSize;
        this.matcher = new TagMatcher(rxSize, unexpected, directed, 0);
        this.directed = directed;
        this.pull = new ShmPull(ep, inFlight, acks, cm, this, rxSize);
        unexpectedPool = new UnexpectedMessage[unexpected];
        for (int i = 0; i < unexpected; i++) {
            unexpectedPool[i] = new UnexpectedMessage(ep.arena.allocate(ep.slotSize, 64));
        }
        unexpectedPoolFree = unexpected;
        iovPool = new ShmIov[rxSize];
        for (int i = 0; i < rxSize; i++) {
            iovPool[i] = new ShmIov();
        }
        iovPoolFree = rxSize;
        sourceOfUnexpected = u -> ep.av.addrOfSender(((UnexpectedMessage) u.payload).senderId);
    }

    void watchPeers(ShmPeerWatch watch) {
        peerWatch = watch;
    }

    ShmPull pull() {
        return pull;
    }

    int rxSize() {
        return rxSize;
    }

    long minMultiRecv() {
        return matcher.minMultiRecv();
    }

    void setMinMultiRecv(long bytes) {
        matcher.setMinMultiRecv(bytes);
    }

    // ---- posting -------------------------------------------------------------------------------

    /**
     * Posts a receive. A multi-receive buffer is one buffer (EINVAL otherwise): its messages are placed one
     * after the other and each completion names where its message starts.
     *
     * <p>Kept under C2's FreqInlineSize (325 bytecodes) so that it inlines into the endpoint's receive
     * hook: what only some receives need (a buffer list, sources resolved late, messages that came first)
     * is in methods of their own.
     */
    int post(OpRequest req, boolean tagged, boolean multi) {
        long length = ShmIov.length(req.iov, req.count);
        if (length < 0 || multi && req.count != 1) {
            return -Errno.EINVAL;
        }
        TagMatcher.Recv r = matcher.newRecv();
        if (r == null) {
            return -Errno.EAGAIN;
        }
        // the CQ slot for this receive's completion is promised now, so delivery can never overrun it
        if (!ep.rxCq.tryReserve()) {
            matcher.free(r);
            return -Errno.EAGAIN;
        }
        r.buffer = req.count == 1 ? req.iov[0] : bufferList(req);
        r.length = length;
        r.context = req.context;
        r.tagged = tagged;
        r.src = req.peer;
        r.tag = tagged ? req.tag : 0;
        r.ignore = tagged ? req.ignore : 0;
        r.flags = multi && !tagged ? OpFlags.MULTI_RECV : 0;
        if (unknownSources > 0 && r.src != Fabrics.ADDR_UNSPEC) {
            unknownSources = matcher.resolveUnknownSources(sourceOfUnexpected);
        }
        TagMatcher.Unexpected u = matcher.takeUnexpected(tagged, r.tag, r.ignore, r.src);
        if (u == null || !deliverQueued(r, u)) {
            postOrFail(r);
        }
        return 0;
    }

    /** Posts {@code r}, or fails it at once when it is directed at a peer the watch found gone. */
    private void postOrFail(TagMatcher.Recv r) {
        if (r.src != Fabrics.ADDR_UNSPEC && directed && peerWatch != null && peerWatch.isGone(r.src)) {
            failPosted(r, Errno.ECONNRESET);
        } else {
            matcher.post(r);
        }
    }

    /** The buffer of a receive posted with no buffer or several (a pooled list for several). */
    private Object bufferList(OpRequest req) {
        if (req.count == 0) {
            return MemorySegment.NULL;
        }
        ShmIov v = iovPool[--iovPoolFree]; // never empty: one list per posted receive at most
        v.set(req.iov, req.count);
        return v;
    }

    /**
     * Delivers the messages that arrived before receive {@code r} was posted, {@code u} first (a
     * multi-receive buffer may take several). Returns true when {@code r} is used up, false when it is still
     * to be posted.
     */
    private boolean deliverQueued(TagMatcher.Recv r, TagMatcher.Unexpected u) {
        do {
            boolean taken = deliverUnexpected(r, u);
            freeUnexpected(u);
            if (taken) {
                return true;
            }
        } while ((u = matcher.takeUnexpected(r.tagged, r.tag, r.ignore, r.src)) != null);
        return false;
    }

    /** fi_cancel: the posted receive with this context completes with ECANCELED. */
    int cancel(Object context) {
        TagMatcher.Recv r = matcher.cancel(context);
        if (r == null) {
            return -Errno.ENOENT;
        }
        ep.bindings.reportRxError(true, r.context, flagsOf(r), 0, 0, 0, r.tagged ? r.tag : 0, 0,
                Errno.ECANCELED, Errno.ECANCELED);
        free(r);
        return 0;
    }

    /** A peer is gone: the receives directed at {@code fiAddr} (FI_DIRECTED_RECV) fail; returns how many. */
    int failDirectedAt(long fiAddr, int errno) {
        int n = 0;
        TagMatcher.Recv r;
        while ((r = matcher.removeFirstPostedFrom(fiAddr)) != null) {
            failPosted(r, errno);
            n++;
        }
        return n;
    }

    /** Receive {@code r}, holding its CQ slot, completes with {@code errno}. */
    private void failPosted(TagMatcher.Recv r, int errno) {
        ep.bindings.reportRxError(true, r.context, flagsOf(r), 0, 0, 0, r.tagged ? r.tag : 0, 0, errno, errno);
        free(r);
    }

    /** Endpoint close: every posted receive is cancelled; every queued message is refused to its sender. */
    void cancelAll() {
        TagMatcher.Recv r;
        while ((r = matcher.removeFirstPosted()) != null) {
            ep.bindings.reportRxError(true, r.context, flagsOf(r), 0, 0, 0, 0, 0, Errno.ECANCELED,
                    Errno.ECANCELED);
            free(r);
        }
        TagMatcher.Unexpected u;
        while ((u = matcher.removeFirstUnexpected()) != null) {
            UnexpectedMessage m = (UnexpectedMessage) u.payload;
            if ((m.type == Wire.CMA || m.type == Wire.RTS) && m.peer != null) {
                acks.send(m.peer, m.opId, Errno.ECANCELED);
            }
            freeUnexpected(u);
        }
    }

    private void free(TagMatcher.Recv r) {
        if (r.buffer instanceof ShmIov v) {
            v.clear();
            iovPool[iovPoolFree++] = v;
        }
        matcher.free(r);
    }

    private void freeUnexpected(TagMatcher.Unexpected u) {
        UnexpectedMessage m = (UnexpectedMessage) u.payload;
        m.clear();
        unexpectedPool[unexpectedPoolFree++] = m;
        matcher.free(u);
    }

    private static long flagsOf(TagMatcher.Recv r) {
        return OpFlags.RECV | (r.tagged ? OpFlags.TAGGED : OpFlags.MSG);
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
        TagMatcher.Recv r = matcher.matchPosted(tagged, tag, srcAddr);
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
                return cma.copyOut(peer, ShmCma.remoteAddress(s, at), dst, offset, n);
            }
        }
    }

    private boolean queueUnexpected(int type, MemorySegment s, long at, Peer peer, long sender, long srcAddr,
                                    boolean tagged, long tag, int wflags, long len) {
        if (unexpectedPoolFree == 0) {
            return false; // back-pressure: leave it in the ring until a receive is posted
        }
        TagMatcher.Unexpected u = matcher.addUnexpected(tagged, tag, srcAddr, len, Wire.getLong(s, at + Wire.DATA),
                wflags);
        if (u == null) {
            return false;
        }
        UnexpectedMessage m = unexpectedPool[--unexpectedPoolFree];
        u.payload = m;
        m.senderId = sender;
        if (srcAddr == Fabrics.ADDR_NOTAVAIL && ep.av != null) {
            unknownSources++;
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
    private boolean deliverUnexpected(TagMatcher.Recv r, TagMatcher.Unexpected u) {
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
            status = cma.copyOut(m.peer, m.remoteAddress, r.buffer, offset, n);
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
        long flags = flagsOf(r) | ((wflags & Wire.FLAG_CQ_DATA) != 0 ? OpFlags.REMOTE_CQ_DATA : 0);
        long bufAddr = ShmIov.address(r.buffer);
        if (bufAddr != 0) {
            bufAddr += r.consumed;
        }
        matcher.consumeMultiRecv(r, n);
        boolean last = r.released;
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
            ep.rxCq.cancelReservation();
            free(r);
        }
    }

    /** Writes the completion of a (non-multi) receive no longer queued, and recycles it. */
    void finishReceive(TagMatcher.Recv r, int status, long len, long n, long data, int wflags, long tag,
                       long srcAddr, long sender) {
        long flags = flagsOf(r) | ((wflags & Wire.FLAG_CQ_DATA) != 0 ? OpFlags.REMOTE_CQ_DATA : 0);
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
        free(r);
    }

    /** FI_SOURCE_ERR's err_data: the sender's address as av.insert takes it, or null when it is gone. */
    private byte[] addressOf(long sender) {
        Peer p = cm.sender(sender);
        return p == null ? null : p.avAddress();
    }

    @Override
    public String toString() {
        return matcher + (unknownSources > 0 ? ", from unknown senders<=" + unknownSources : "");
    }
}
