package io.jfabric.provider.shm;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;
import io.jfabric.util.UtilMemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * RMA (fi_read, fi_write and their forms), both sides. The initiator sends a command with the key, the
 * target address and its own buffer's address; the target checks key, access and bounds against its MR
 * map, copies with process_vm_readv/writev and ACKs with the status, and the initiator completes on the
 * ACK. A large read or write of one segment is split as a large message is ({@link ShmSplitCopy}): the target,
 * having checked the range, offers the initiator the second half, which an initiator waiting on its CQ copies itself.
 *
 * <p>With one local buffer and one remote range the command names the initiator's buffer, and the target copies
 * straight between it and the registered memory; with up to four of each (readv/writev, readmsg/writemsg) it lists
 * them ({@link ShmRmaVector}). The buffers must be native memory and add up to the ranges (EINVAL otherwise).
 *
 * <p>A write with FI_INJECT (fi_inject_write, fi_inject_writedata, fi_writemsg with the flag) may not leave the
 * target reading the initiator's buffer after the call returns, so its bytes, up to inject_size and gathered from
 * up to iov_limit buffers of any kind, travel in the command itself ({@link Wire#FLAG_INLINE_DATA}) and the target
 * copies them out of its ring.
 */
final class ShmRma {
    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;
    private final ShmAckQueue acks;
    private final ShmCm cm;
    private final ShmRmaVector vector;
    private final ShmSplitCopy split;

    ShmRma(ShmEndpointState ep, ShmInFlight inFlight, ShmAckQueue acks, ShmCm cm, ShmSplitCopy split) {
        this.ep = ep;
        this.inFlight = inFlight;
        this.acks = acks;
        this.cm = cm;
        this.split = split;
        this.vector = new ShmRmaVector(ep.domain.mrMap, ep.cma, split);
    }

    // ---- initiator -------------------------------------------------------------------------------

    int read(OpRequest req) {
        return post(Wire.RMA_READ, req);
    }

    /** FI_REMOTE_CQ_DATA (fi_writedata): the target reports the data as remote CQ data. */
    int write(OpRequest req) {
        return (req.flags & OpFlags.INJECT) != 0 ? writeInline(req) : post(Wire.RMA_WRITE, req);
    }

    private int post(int type, OpRequest req) {
        if (req.count != 1 || req.rmaCount != 1) {
            int record = ShmRmaVector.recordLength(req);
            return record < 0 ? record : claimAndSend(type, req, req.length(), record, Wire.FLAG_VECTOR, null);
        }
        MemorySegment buf = req.iov[0];
        if (buf == null || req.rmaIov[0].len != buf.byteSize() || !buf.isNative()) {
            return -Errno.EINVAL; // the target copies straight into/out of this buffer with CMA
        }
        return claimAndSend(type, req, buf.byteSize(), ShmEndpointState.RMA_RECORD, 0, buf);
    }

    /** An inject write: its bytes go in the command, so the caller's buffers are free when this returns. */
    private int writeInline(OpRequest req) {
        long len = ShmIov.length(req.iov, req.count);
        if (len < 0 || req.rmaCount != 1 || req.rmaIov[0].len != len) {
            return -Errno.EINVAL;
        }
        if (len > ep.inlineSize) {
            return -Errno.EMSGSIZE;
        }
        return claimAndSend(Wire.RMA_WRITE, req, len, Wire.recordPayload(Wire.RMA_HEADER + (int) len),
                Wire.FLAG_INLINE_DATA, null);
    }

    /**
     * Puts the command in the peer's ring: with {@code cmaBuffer}, the initiator's one buffer that the target copies
     * to or from; otherwise the bytes to write ({@link Wire#FLAG_INLINE_DATA}) or the lists of buffers and ranges
     * ({@link Wire#FLAG_VECTOR}) follow the header.
     */
    private int claimAndSend(int type, OpRequest req, long len, int recordLength, int form, MemorySegment cmaBuffer) {
        Peer peer = ep.av.peer(req.peer);
        if (peer == null) {
            return -Errno.EINVAL;
        }
        if (peer.goneForSend()) {
            return -Errno.ECONNRESET;
        }
        if (form != Wire.FLAG_INLINE_DATA && !peer.cmaWorks) {
            return -Errno.EOPNOTSUPP;
        }
        PendingOp op = inFlight.acquire(ep.bindings.txWantsCompletion(req.flags));
        if (op == null) {
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(type, recordLength);
        if (at == MpscRing.FULL) {
            inFlight.cancel(op);
            return ShmCm.full(peer);
        }
        op.context = req.context;
        op.completionFlags = OpFlags.RMA | (type == Wire.RMA_READ ? OpFlags.READ : OpFlags.WRITE);
        op.length = len;
        op.peer = peer;
        op.rmaAddr = req.rmaIov[0].addr;
        op.rmaKey = req.rmaIov[0].key;
        // the buffers the target may offer to let us copy half of (ShmSplitCopy); an inject write's are in the command
        if (form != Wire.FLAG_INLINE_DATA) {
            op.cmaBuffers.set(req.iov, req.count);
            op.cmaWrites = type == Wire.RMA_WRITE;
        }
        boolean hasData = type == Wire.RMA_WRITE && (req.flags & OpFlags.REMOTE_CQ_DATA) != 0;
        int flags = (hasData ? Wire.FLAG_CQ_DATA : 0) | form;
        MemorySegment s = r.buffer();
        ep.putHeader(s, at, 0, type == Wire.RMA_WRITE ? req.data : 0, flags, len, op.id(), req.rmaIov[0].addr);
        Wire.putLong(s, at + Wire.KEY, req.rmaIov[0].key);
        Wire.putLong(s, at + Wire.LOCAL_ADDRESS, cmaBuffer == null ? 0 : cmaBuffer.address());
        if (form == Wire.FLAG_INLINE_DATA) {
            ShmIov.gather(req.iov, req.count, s, at + Wire.RMA_HEADER);
        } else if (form == Wire.FLAG_VECTOR) {
            ShmRmaVector.encode(req, s, at);
        }
        r.commit(at);
        peer.doorbell.ring();
        return 0;
    }

    // ---- target ----------------------------------------------------------------------------------

    /** A peer's RMA_READ or RMA_WRITE command, {@code length} bytes of it in the ring. */
    boolean onCommand(int type, MemorySegment s, long at, int length) {
        long sender = Wire.getLong(s, at + Wire.SENDER);
        Peer peer = cm.sender(sender);
        if (peer == null) {
            return true; // the initiator is gone; nobody to answer
        }
        long opId = Wire.getLong(s, at + Wire.OP_ID);
        long len = Wire.getLong(s, at + Wire.LENGTH);
        long addr = Wire.getLong(s, at + Wire.ADDRESS);
        long key = Wire.getLong(s, at + Wire.KEY);
        long remote = Wire.getLong(s, at + Wire.LOCAL_ADDRESS);
        int wflags = Wire.getInt(s, at + Wire.FLAGS);
        boolean inline = type == Wire.RMA_WRITE && (wflags & Wire.FLAG_INLINE_DATA) != 0;
        UtilMemoryRegion mr = ep.domain.mrMap.find(key);
        int status;
        if ((wflags & Wire.FLAG_VECTOR) != 0) {
            status = vector.apply(type, s, at, length, peer, opId);
        } else if (inline && (len < 0 || len > length - Wire.RMA_HEADER)) {
            status = Errno.EIO; // the command does not hold the bytes it says it brings: nothing is written
        } else if (mr == null) {
            status = Errno.ENOKEY;
        } else {
            long off = mr.resolve(addr, len, type == Wire.RMA_WRITE ? Access.REMOTE_WRITE : Access.REMOTE_READ);
            if (off < 0) {
                status = (int) -off;
            } else if (len == 0) {
                status = 0;
            } else if (inline) {
                status = copyPieces(type, peer, mr, off, at + Wire.RMA_HEADER, len, s);
            } else if (mr.segmentCount() == 1) {
                status = split.copy(type == Wire.RMA_READ, peer, opId, remote, mr.segment(), off, len);
            } else {
                status = copyPieces(type, peer, mr, off, remote, len, null);
            }
        }
        if (status == 0 && type == Wire.RMA_WRITE && (wflags & Wire.FLAG_CQ_DATA) != 0) {
            // fi_writedata: the data is in place before the target's completion is visible
            ep.bindings.reportRemote(OpFlags.RMA | OpFlags.REMOTE_WRITE, len, Wire.getLong(s, at + Wire.DATA), true,
                    ep.av == null ? Fabrics.ADDR_NOTAVAIL : ep.av.addrOfSender(sender));
        } else if (status == 0) {
            // the FI_REMOTE_WRITE or FI_REMOTE_READ counter, where one is bound
            ep.bindings.reportRemote(OpFlags.RMA | (type == Wire.RMA_WRITE ? OpFlags.REMOTE_WRITE : OpFlags.REMOTE_READ),
                    len, 0, false);
        }
        acks.send(peer, opId, status);
        return true;
    }

    /** One process_vm_readv/writev between registered memory at {@code local} and the initiator's buffer. */
    private int copy(int type, Peer peer, long local, long remote, long len) {
        return ShmIov.cmaStatus(ep.cma.copy(type == Wire.RMA_READ, peer.pid, local, remote, len));
    }

    /**
     * The range at {@code off} of the region's concatenation, one copy per segment it touches: with CMA from or
     * to the initiator's buffer at {@code from}, or, for an inject write, from offset {@code from} of the
     * {@code command} in our ring.
     */
    private int copyPieces(int type, Peer peer, UtilMemoryRegion mr, long off, long from, long len,
                           MemorySegment command) {
        int seg = mr.segmentIndex(off);
        long inSeg = off - mr.segmentStart(seg);
        int status = 0;
        while (len > 0 && status == 0) {
            MemorySegment s = mr.segment(seg);
            long piece = Math.min(len, s.byteSize() - inSeg);
            if (command != null) {
                MemorySegment.copy(command, from, s, inSeg, piece);
            } else {
                status = copy(type, peer, s.address() + inSeg, from, piece);
            }
            from += piece;
            len -= piece;
            seg++;
            inSeg = 0;
        }
        return status;
    }
}
