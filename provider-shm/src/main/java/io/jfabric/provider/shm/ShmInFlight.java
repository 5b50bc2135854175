package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;
import io.jfabric.util.RmaFailure;

/**
 * The transmit operations in flight: those that wait for the peer's ACK (CMA and pulled sends, RMA) and
 * the inline and bounce sends that wait for the peer to consume their record, and their completions.
 *
 * <p>Inline and bounce sends that ask for a completion complete when the peer's ring head has passed
 * their record, i.e. the peer has taken the message (matched it, or queued it as unexpected). Until then
 * they hold a PendingOp, so a peer that dies first fails them with ECONNRESET from the liveness scan
 * instead of the message being lost after a success completion.
 */
final class ShmInFlight {
    private final ShmEndpointState ep;
    private final PendingOps pending;
    /**
     * Inline/bounce sends waiting for the peer to consume their record: op ids in posting order (entries of
     * ops completed otherwise, e.g. failed by the liveness scan, are skipped when they reach the head).
     */
    private final long[] deferred;
    private int deferredHead;
    private int deferredTail;

    ShmInFlight(ShmEndpointState ep, int txSize) {
        this.ep = ep;
        this.pending = new PendingOps(txSize);
        this.deferred = new long[Integer.highestOneBit(txSize - 1) << 2]; // a power of two >= 2 x txSize
    }

    /** A CQ slot and a PendingOp for a send that completes on consumption; null: answer EAGAIN. */
    PendingOp reserveDeferred() {
        if (deferredTail - deferredHead == deferred.length || !ep.txCq.tryReserve()) {
            return null;
        }
        PendingOp op = pending.acquire();
        if (op == null) {
            ep.txCq.cancelReservation();
        }
        return op;
    }

    /** Gives back what {@link #reserveDeferred} took (null: nothing was taken). */
    void cancelDeferred(PendingOp op) {
        if (op != null) {
            pending.release(op);
            ep.txCq.cancelReservation();
        }
    }

    void deferUntilConsumed(PendingOp op, Peer peer, long ringEnd, Object context, long cqFlags, long len) {
        op.context = context;
        op.completionFlags = cqFlags;
        op.length = len;
        op.peer = peer;
        op.reserved = true;
        op.ringEnd = ringEnd;
        deferred[deferredTail++ & (deferred.length - 1)] = op.id();
    }

    boolean hasDeferred() {
        return deferredHead != deferredTail;
    }

    /**
     * The deferred send that completes next (sends complete in posting order), or null when the oldest entry was
     * completed otherwise. A sleeper reads it without the endpoint's lock: a stale answer costs a spurious wake or
     * a sleep that ends at its fallback limit, nothing else.
     */
    PendingOp oldestDeferred() {
        if (deferredHead == deferredTail) {
            return null;
        }
        PendingOp op = pending.find(deferred[deferredHead & (deferred.length - 1)]);
        return op != null && op.ringEnd >= 0 ? op : null;
    }

    /** Completes, in posting order, the deferred sends whose records the peers have consumed. */
    int completeConsumed() {
        int n = 0;
        while (deferredHead != deferredTail) {
            PendingOp op = pending.find(deferred[deferredHead & (deferred.length - 1)]);
            if (op != null && op.ringEnd >= 0) {
                if (!op.peer.ring.consumed(op.ringEnd)) {
                    break;
                }
                complete(op, 0);
                n++;
            }
            deferredHead++;
        }
        return n;
    }

    /**
     * Announces a message the receiver fetches itself, a CMA or RTS command: holds a PendingOp (and a CQ
     * slot when {@code complete}) until the receiver's ACK. An RTS op keeps the caller's buffers, which the
     * receiver pulls chunk by chunk.
     */
    int announce(int type, Peer peer, OpRequest req, long len, int wflags, boolean complete, long cqFlags) {
        if (complete && !ep.txCq.tryReserve()) {
            return -Errno.EAGAIN;
        }
        PendingOp op = pending.acquire();
        if (op == null) {
            if (complete) {
                ep.txCq.cancelReservation();
            }
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(type, ShmEndpointState.COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            pending.release(op);
            if (complete) {
                ep.txCq.cancelReservation();
            }
            return ShmCm.full(peer);
        }
        op.context = req.context;
        op.completionFlags = cqFlags;
        op.length = len;
        op.peer = peer;
        op.reserved = complete;
        boolean pull = type == Wire.RTS;
        if (pull) {
            op.source.set(req.iov, req.count);
        } else if (type == Wire.CMA) {
            op.cmaBuffers.set(req.iov, 1);
            op.cmaWrites = true;
        }
        ep.putHeader(r.buffer(), at, req.tag, req.data, wflags, len, op.id(), pull ? 0 : req.iov[0].address());
        r.commit(at);
        peer.doorbell.ring();
        return 0;
    }

    /**
     * An RMA command's op: held (with a CQ slot when {@code complete}) until the target's ACK; null when
     * none is free (answer EAGAIN). The caller fills the command and gives the op back with
     * {@link #cancel} if the peer's ring is full.
     */
    PendingOp acquire(boolean complete) {
        if (complete && !ep.txCq.tryReserve()) {
            return null;
        }
        PendingOp op = pending.acquire();
        if (op == null && complete) {
            ep.txCq.cancelReservation();
        }
        if (op != null) {
            op.reserved = complete;
        }
        return op;
    }

    void cancel(PendingOp op) {
        if (op.reserved) {
            ep.txCq.cancelReservation();
        }
        pending.release(op);
    }

    /** The peer's ACK for op {@code opId}; stale and forged ones (unknown id, a deferred op) are ignored. */
    void onAck(long opId, int status) {
        PendingOp op = pending.find(opId);
        if (op != null && op.ringEnd < 0) {
            complete(op, status);
        }
    }

    /**
     * Writes the op's completion and frees it. Success reports len 0 (fi_cq(3): len is for receives);
     * errors always get an entry, with the errno as prov_errno too, there being no finer code.
     */
    void complete(PendingOp op, int status) {
        if (status == 0) {
            ep.bindings.reportTx(op.reserved, op.reserved, op.context, op.completionFlags, 0);
        } else {
            int err = Math.abs(status);
            long f = op.completionFlags;
            // an RMA's error status is the target's verdict on the access (a dead target is ECONNRESET)
            boolean refused = (f & OpFlags.RMA) != 0 && err != Errno.ECONNRESET;
            ep.bindings.reportTxError(op.reserved, op.context, f, op.length, err, err, refused
                    ? RmaFailure.refused((f & OpFlags.READ) != 0, err, op.length, op.rmaAddr, op.rmaKey) : null);
        }
        pending.release(op);
    }

    /** Fails the ops waiting on a peer that died (a deferred send it took just before was delivered). */
    int failToDeadPeers(long now, DeadPeerTally tally) {
        int n = 0;
        for (int i = 0; i < pending.capacity(); i++) {
            PendingOp op = pending.at(i);
            if (op.busy && op.peer != null && op.peer.checkAlive(now, ShmEndpointState.LIVENESS_INTERVAL)) {
                Peer peer = op.peer;
                boolean delivered = consumed(op);
                complete(op, delivered ? 0 : Errno.ECONNRESET);
                if (!delivered) {
                    tally.failed(peer);
                }
                n++;
            }
        }
        return n;
    }

    /** Endpoint close: every op still in flight completes, cancelled unless its record was consumed. */
    void cancelAll() {
        for (int i = 0; i < pending.capacity(); i++) {
            PendingOp op = pending.at(i);
            if (op.busy) {
                complete(op, consumed(op) ? 0 : Errno.ECANCELED);
            }
        }
    }

    private static boolean consumed(PendingOp op) {
        return op.ringEnd >= 0 && op.peer.ring.consumed(op.ringEnd);
    }

    /** The busy op with this id, or null. */
    PendingOp find(long id) {
        return pending.find(id);
    }

    int inFlight() {
        return pending.inFlight();
    }

    int capacity() {
        return pending.capacity();
    }
}
