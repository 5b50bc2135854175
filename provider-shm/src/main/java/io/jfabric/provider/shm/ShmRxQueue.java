package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;
import io.jfabric.util.TagMatcher;
import io.jfabric.util.UtilCompletionQueue;

import java.lang.foreign.MemorySegment;
import java.util.function.ToLongFunction;

/**
 * One receive context: the posted receives and the unexpected messages on provider-util's {@link TagMatcher}, with
 * the buffer lists of receives posted with several buffers. An endpoint has its own; a shared receive context
 * ({@link ShmSharedRx}) has one that every endpoint bound to it matches against, so each queued message remembers
 * the endpoint ({@link UnexpectedMessage#owner}) whose ring and peers deliver it. All endpoints of a context share
 * its receive CQ, where a slot is promised to each receive at post, and its AV (fi_endpoint(3)).
 */
final class ShmRxQueue {
    final TagMatcher matcher;
    private final int rxSize;
    /** Buffer lists of receives posted with more than one buffer. */
    private final ShmIov[] iovPool;
    private int iovPoolFree;
    /** Set when the first endpoint of the context is enabled. */
    private UtilCompletionQueue cq;
    private ShmAv av;
    /** Queued messages that came before their sender's address was in the AV (at most: some may be gone). */
    int unknownSources;
    private final ToLongFunction<TagMatcher.Unexpected> sourceOfUnexpected =
            u -> av.addrOfSender(((UnexpectedMessage) u.payload).senderId);

    /** FI_DIRECTED_RECV: a receive names its source, so one directed at a peer known gone fails at once. */
    private final boolean directed;
    /** Which peers are known gone; set by the first endpoint whose watch runs (a shared context's endpoints share an AV). */
    private ShmPeerWatch peerWatch;

    ShmRxQueue(int rxSize, int unexpected, boolean directed) {
        this.rxSize = rxSize;
        this.directed = directed;
        this.matcher = new TagMatcher(rxSize, unexpected, directed, 0);
        iovPool = new ShmIov[rxSize];
        for (int i = 0; i < rxSize; i++) {
            iovPool[i] = new ShmIov();
        }
        iovPoolFree = rxSize;
    }

    int rxSize() {
        return rxSize;
    }

    UtilCompletionQueue cq() {
        return cq;
    }

    /**
     * An endpoint of this context is enabled with its receive CQ and AV.
     *
     * @throws FabricException EINVAL when another endpoint of the context has a different CQ or AV
     */
    void attach(UtilCompletionQueue rxCq, ShmAv epAv) {
        if (cq == null) {
            cq = rxCq;
            av = epAv;
        } else if (cq != rxCq || av != epAv) {
            throw new FabricException(Errno.EINVAL, "endpoints sharing an shm receive context must bind the same "
                    + "receive CQ and the same AV as the context's first endpoint");
        }
    }

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
        if (cq == null) {
            return -Errno.EOPBADSTATE;
        }
        TagMatcher.Recv r = reserve(req, tagged, length);
        if (r == null) {
            return -Errno.EAGAIN;
        }
        r.flags = multi && !tagged ? OpFlags.MULTI_RECV : 0;
        resolveSourcesFor(r.src);
        TagMatcher.Unexpected u = matcher.takeUnexpected(tagged, r.tag, r.ignore, r.src);
        if (u == null || !deliverQueued(r, u)) {
            postOrFail(r);
        }
        return 0;
    }

    /**
     * A receive node for {@code req} with its CQ slot promised now, so that its delivery can never overrun the CQ;
     * null when either is lacking (answer -EAGAIN).
     */
    private TagMatcher.Recv reserve(OpRequest req, boolean tagged, long length) {
        TagMatcher.Recv r = matcher.newRecv();
        if (r == null) {
            return null;
        }
        if (!cq.tryReserve()) {
            matcher.free(r);
            return null;
        }
        r.buffer = req.count == 1 ? req.iov[0] : bufferList(req);
        r.length = length;
        r.context = req.context;
        r.tagged = tagged;
        r.src = req.peer;
        r.tag = tagged ? req.tag : 0;
        r.ignore = tagged ? req.ignore : 0;
        return r;
    }

    /** Queued messages that came before their sender was in the AV are matched by source once it is. */
    private void resolveSourcesFor(long src) {
        if (unknownSources > 0 && src != Fabrics.ADDR_UNSPEC) {
            unknownSources = matcher.resolveUnknownSources(sourceOfUnexpected);
        }
    }

    /**
     * fi_tagged(3) on the queued tagged messages. FI_PEEK completes at once with the first message a receive with
     * this tag, ignore mask and source would take (its length, tag, data and source; the buffers are untouched), or
     * with an FI_ENOMSG error; with FI_CLAIM it also reserves that message for this context, with FI_DISCARD it
     * drops it. FI_CLAIM without FI_PEEK receives the message this context claimed (EINVAL when there is none), or
     * with FI_DISCARD drops it. A dropped message's sender sees its send complete. None of these counts on a
     * counter but the FI_CLAIM receive.
     */
    int peekOrClaim(OpRequest req) {
        long length = ShmIov.length(req.iov, req.count);
        if (length < 0) {
            return -Errno.EINVAL;
        }
        if (cq == null) {
            return -Errno.EOPBADSTATE;
        }
        boolean discard = (req.flags & OpFlags.DISCARD) != 0;
        if ((req.flags & OpFlags.PEEK) != 0) {
            if (!cq.tryReserve()) {
                return -Errno.EAGAIN;
            }
            resolveSourcesFor(req.peer);
            TagMatcher.Unexpected u = matcher.findUnexpected(true, req.tag, req.ignore, req.peer);
            if (u == null) {
                cq.writeError(true, req.context, OpFlags.RECV | OpFlags.TAGGED, 0, 0, 0, req.tag, 0, Errno.ENOMSG,
                        Errno.ENOMSG, null);
                return 0;
            }
            cq.writeFrom(true, req.context, OpFlags.RECV | OpFlags.TAGGED | dataFlag(u), u.len, 0, u.data, u.tag,
                    u.src);
            if (discard) {
                matcher.removeUnexpected(u);
                ((UnexpectedMessage) u.payload).owner.discardUnexpected(u);
            } else if ((req.flags & OpFlags.CLAIM) != 0) {
                matcher.claim(u, req.context);
            }
            return 0;
        }
        if (req.context == null) {
            return -Errno.EINVAL; // a claim is paired with its peek by the context
        }
        // what completing the claimed message needs is taken first, so that a lack of it leaves the claim as it was
        TagMatcher.Recv r = discard ? null : reserve(req, true, length);
        if (discard ? !cq.tryReserve() : r == null) {
            return -Errno.EAGAIN;
        }
        TagMatcher.Unexpected u = matcher.takeClaimed(req.context);
        if (u == null) {
            cq.cancelReservation();
            if (r != null) {
                free(r);
            }
            return -Errno.EINVAL;
        }
        ShmRecv owner = ((UnexpectedMessage) u.payload).owner;
        if (discard) {
            cq.writeFrom(true, req.context, OpFlags.RECV | OpFlags.TAGGED | dataFlag(u), 0, 0, u.data, u.tag, u.src);
            owner.discardUnexpected(u);
        } else {
            owner.deliverUnexpected(r, u);
            owner.freeUnexpected(u);
        }
        return 0;
    }

    private static long dataFlag(TagMatcher.Unexpected u) {
        return (u.flags & Wire.FLAG_CQ_DATA) != 0 ? OpFlags.REMOTE_CQ_DATA : 0;
    }

    void watchPeers(ShmPeerWatch watch) {
        if (peerWatch == null) {
            peerWatch = watch;
        }
    }

    /** Posts {@code r}, or fails it at once when it is directed at a peer the watch found gone. */
    private void postOrFail(TagMatcher.Recv r) {
        if (r.src != Fabrics.ADDR_UNSPEC && directed && peerWatch != null && peerWatch.isGone(r.src)) {
            failed(r, Errno.ECONNRESET);
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
     * Delivers the messages that arrived before receive {@code r} was posted, {@code u} first (a multi-receive
     * buffer may take several), each by the endpoint it arrived on. Returns true when {@code r} is used up, false
     * when it is still to be posted.
     */
    private boolean deliverQueued(TagMatcher.Recv r, TagMatcher.Unexpected u) {
        do {
            ShmRecv owner = ((UnexpectedMessage) u.payload).owner;
            boolean taken = owner.deliverUnexpected(r, u);
            owner.freeUnexpected(u);
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
        failed(r, Errno.ECANCELED);
        return 0;
    }

    /** Every posted receive completes with ECANCELED (its endpoint or shared context closes). */
    void cancelPosted() {
        TagMatcher.Recv r;
        while ((r = matcher.removeFirstPosted()) != null) {
            failed(r, Errno.ECANCELED);
        }
    }

    /** A peer is gone: the receives directed at {@code fiAddr} (FI_DIRECTED_RECV) fail; returns how many. */
    int failDirectedAt(long fiAddr, int errno) {
        int n = 0;
        TagMatcher.Recv r;
        while ((r = matcher.removeFirstPostedFrom(fiAddr)) != null) {
            failed(r, errno);
            n++;
        }
        return n;
    }

    private void failed(TagMatcher.Recv r, int errno) {
        if (r.slicesInFlight > 0) {
            // messages are still being pulled into this multi-receive buffer: the last of them releases it
            r.released = true;
            cq.writeError(false, r.context, flagsOf(r), 0, 0, 0, 0, 0, errno, errno, null);
            return;
        }
        cq.writeError(true, r.context, flagsOf(r), 0, 0, 0, r.tagged ? r.tag : 0, 0, errno, errno, null);
        free(r);
    }

    void free(TagMatcher.Recv r) {
        if (r.buffer instanceof ShmIov v) {
            v.clear();
            iovPool[iovPoolFree++] = v;
        }
        matcher.free(r);
    }

    static long flagsOf(TagMatcher.Recv r) {
        return OpFlags.RECV | (r.tagged ? OpFlags.TAGGED : OpFlags.MSG);
    }

    @Override
    public String toString() {
        return matcher + (unknownSources > 0 ? ", from unknown senders<=" + unknownSources : "");
    }
}
