package io.jfabric.provider.shm;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.AtomicRequest;
import io.jfabric.util.AtomicTarget;

import java.lang.foreign.MemorySegment;

/**
 * Atomics (fi_atomic, fi_fetch_atomic, fi_compare_atomic), both sides, as libfabric's shm does them: the
 * initiator copies the operands (and compare operands) into an ATOMIC command in the target's ring, and the
 * target process applies the operation to its own registered memory with provider-util's {@link AtomicTarget},
 * so every update of a location goes through the process that owns it. Integer, float and double elements are
 * updated by a compare-and-set on the element itself, so they are atomic also against other endpoints and
 * threads of that process, and against anything else that maps the memory; complex elements under a lock of
 * that process. A plain atomic is ACKed with its status; a fetch or compare is answered with an ATOMIC_RESULT
 * that carries the status and the previous elements, which the initiator copies into its result buffers before
 * it completes.
 *
 * <p>One remote array per operation (rma_iov_limit 1, as for RMA), operands and results up to the domain's
 * inline size ({@link #limit}); buffers may be heap memory, since they are copied, and inject works.
 */
final class ShmAtomic {
    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;
    private final ShmAckQueue acks;
    private final ShmCm cm;
    private final AtomicTarget target;
    private final int maxBytes;

    ShmAtomic(ShmEndpointState ep, ShmInFlight inFlight, ShmAckQueue acks, ShmCm cm) {
        this.ep = ep;
        this.inFlight = inFlight;
        this.acks = acks;
        this.cm = cm;
        this.target = new AtomicTarget(ep.domain.mrMap);
        this.maxBytes = Math.max(64, ep.inlineSize);
    }

    /** The most elements of {@code datatype} one operation of {@code kind} holds. */
    long limit(int kind, AtomicDatatype datatype) {
        if (datatype == AtomicDatatype.LONG_DOUBLE || datatype == AtomicDatatype.LONG_DOUBLE_COMPLEX) {
            return -Errno.EOPNOTSUPP;
        }
        return (kind == AtomicRequest.COMPARE ? maxBytes / 2 : maxBytes) / datatype.size();
    }

    // ---- initiator -------------------------------------------------------------------------------

    int post(AtomicRequest req) {
        if (req.rmaCount != 1 || req.resultCount > ShmIov.LIMIT) {
            return -Errno.EINVAL;
        }
        Peer peer = ep.av.peer(req.peer);
        if (peer == null || peer.goneForSend()) {
            return peer == null ? -Errno.EINVAL : -Errno.ECONNRESET;
        }
        long bytes = req.bytes();
        boolean readOnly = req.kind == AtomicRequest.FETCH && req.op == AtomicOp.ATOMIC_READ;
        int operands = readOnly ? 0 : (int) bytes;
        int compares = req.kind == AtomicRequest.COMPARE ? (int) bytes : 0;
        PendingOp op = inFlight.acquire(ep.bindings.txWantsCompletion(req.flags));
        if (op == null) {
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(Wire.ATOMIC, Wire.recordPayload(Wire.ATOMIC_HEADER + operands + compares));
        if (at == MpscRing.FULL) {
            inFlight.cancel(op);
            return ShmCm.full(peer);
        }
        op.context = req.context;
        op.completionFlags = OpFlags.ATOMIC | (req.kind == AtomicRequest.WRITE ? OpFlags.WRITE : OpFlags.READ);
        op.length = bytes;
        op.peer = peer;
        for (int i = 0; i < req.resultCount; i++) {
            op.results[i] = req.result[i];
        }
        op.resultCount = req.resultCount;
        MemorySegment s = r.buffer();
        ep.putHeader(s, at, 0, 0, 0, bytes, op.id(), req.rmaIoc[0].addr);
        Wire.putLong(s, at + Wire.KEY, req.rmaIoc[0].key);
        Wire.putInt(s, at + Wire.ATOMIC_DATATYPE, req.datatype.value());
        Wire.putInt(s, at + Wire.ATOMIC_OP, req.op.value());
        Wire.putInt(s, at + Wire.ATOMIC_KIND, req.kind);
        Wire.putInt(s, at + Wire.ATOMIC_COUNT, (int) req.elements);
        long to = gather(s, at + Wire.ATOMIC_HEADER, req.iov, req.count);
        gather(s, to, req.compare, compares == 0 ? 0 : req.compareCount);
        r.commit(at);
        peer.doorbell.ring();
        return 0;
    }

    private static long gather(MemorySegment s, long to, MemorySegment[] from, int n) {
        for (int i = 0; i < n; i++) {
            MemorySegment.copy(from[i], 0, s, to, from[i].byteSize());
            to += from[i].byteSize();
        }
        return to;
    }

    /** The target's ATOMIC_RESULT: scatters the previous elements into the op's result buffers, completes it. */
    boolean onResult(MemorySegment s, long at, int length) {
        PendingOp op = inFlight.find(Wire.getLong(s, at + Wire.OP_ID));
        int status = Wire.getInt(s, at + Wire.STATUS);
        long len = Wire.getLong(s, at + Wire.LENGTH);
        if (op == null || op.ringEnd >= 0) {
            return true; // stale or forged
        }
        if (status == 0 && (len != op.length || len > length - Wire.HEADER)) {
            status = Errno.EIO; // the target answered with a different size: nothing is copied
        }
        if (status == 0) {
            long from = at + Wire.HEADER;
            for (int i = 0; i < op.resultCount; i++) {
                MemorySegment dst = op.results[i];
                MemorySegment.copy(s, from, dst, 0, dst.byteSize());
                from += dst.byteSize();
            }
        }
        inFlight.complete(op, status);
        return true;
    }

    // ---- target ----------------------------------------------------------------------------------

    /**
     * A peer's ATOMIC command. A fetch or compare first claims its answer in the initiator's ring, so that the
     * operation is applied only when its result can be sent; while that ring is full the command stays in ours
     * (returns false) and is retried.
     */
    boolean onCommand(MemorySegment s, long at, int length) {
        Peer peer = cm.sender(Wire.getLong(s, at + Wire.SENDER));
        if (peer == null) {
            return true; // the initiator is gone; nobody to answer
        }
        long opId = Wire.getLong(s, at + Wire.OP_ID);
        int kind = Wire.getInt(s, at + Wire.ATOMIC_KIND);
        int op = Wire.getInt(s, at + Wire.ATOMIC_OP);
        int status = target.check(kind, Wire.getInt(s, at + Wire.ATOMIC_DATATYPE), op,
                Wire.getLong(s, at + Wire.KEY), Wire.getLong(s, at + Wire.ADDRESS),
                Wire.getInt(s, at + Wire.ATOMIC_COUNT));
        long bytes = status == 0 ? target.bytes() : 0;
        boolean readOnly = kind == AtomicRequest.FETCH && op == AtomicOp.ATOMIC_READ.value();
        long operands = readOnly ? 0 : bytes;
        long compares = kind == AtomicRequest.COMPARE ? bytes : 0;
        if (status == 0 && (Wire.getLong(s, at + Wire.LENGTH) != bytes
                || Wire.ATOMIC_HEADER + operands + compares > length)) {
            status = Errno.EINVAL;
        }
        long src = at + Wire.ATOMIC_HEADER;
        if (status != 0 || kind == AtomicRequest.WRITE) {
            if (status == 0) {
                target.apply(s, src, null, 0, null, 0);
                ep.bindings.reportRemote(OpFlags.ATOMIC | OpFlags.REMOTE_WRITE, bytes, 0, false);
            }
            acks.send(peer, opId, status);
            return true;
        }
        if (peer.gone()) {
            return true;
        }
        MpscRing r = peer.ring;
        long rat = r.tryClaim(Wire.ATOMIC_RESULT, Wire.recordPayload(Wire.HEADER + (int) bytes));
        if (rat == MpscRing.FULL) {
            return false;
        }
        MemorySegment out = r.buffer();
        ep.putHeader(out, rat, 0, 0, 0, bytes, opId, 0);
        target.apply(readOnly ? null : s, src, compares == 0 ? null : s, src + operands, out, rat + Wire.HEADER);
        ep.bindings.reportRemote(OpFlags.ATOMIC | OpFlags.REMOTE_READ, bytes, 0, false); // fi_endpoint(3): fetch, compare
        r.commit(rat);
        peer.doorbell.ring();
        return true;
    }
}
