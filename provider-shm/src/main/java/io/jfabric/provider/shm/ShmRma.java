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
 * ACK.
 *
 * <p>One local buffer and one remote range per operation: the command names one initiator buffer, and the
 * target copies straight between it and the registered memory. Forms with more (readv/writev with
 * several buffers, readmsg/writemsg with several buffers or ranges) answer EINVAL, and the info says
 * rma_iov_limit 1; so does a msg form whose range length differs from its buffer's.
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

    ShmRma(ShmEndpointState ep, ShmInFlight inFlight, ShmAckQueue acks, ShmCm cm) {
        this.ep = ep;
        this.inFlight = inFlight;
        this.acks = acks;
        this.cm = cm;
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
        if (req.count != 1 || req.rmaCount != 1 || req.iov[0] == null
                || req.rmaIov[0].len != req.iov[0].byteSize()) {
            return -Errno.EINVAL;
        }
        MemorySegment buf = req.iov[0];
        if (!buf.isNative()) {
            return -Errno.EINVAL; // the target copies straight into/out of this buffer with CMA
        }
        return claimAndSend(type, req, buf.byteSize(), buf);
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
        return claimAndSend(Wire.RMA_WRITE, req, len, null);
    }

    /**
     * Puts the command in the peer's ring: with {@code cmaBuffer}, the initiator's buffer that the target copies
     * to or from; without, the bytes to write follow the header.
     */
    private int claimAndSend(int type, OpRequest req, long len, MemorySegment cmaBuffer) {
        Peer peer = ep.av.peer(req.peer);
        if (peer == null) {
            return -Errno.EINVAL;
        }
        if (peer.goneForSend()) {
            return -Errno.ECONNRESET;
        }
        if (cmaBuffer != null && !peer.cmaWorks) {
            return -Errno.EOPNOTSUPP;
        }
        PendingOp op = inFlight.acquire(ep.bindings.txWantsCompletion(req.flags));
        if (op == null) {
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(type, cmaBuffer != null ? ShmEndpointState.RMA_RECORD
                : Wire.recordPayload(Wire.RMA_HEADER + (int) len));
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
        boolean hasData = type == Wire.RMA_WRITE && (req.flags & OpFlags.REMOTE_CQ_DATA) != 0;
        int flags = (hasData ? Wire.FLAG_CQ_DATA : 0) | (cmaBuffer == null ? Wire.FLAG_INLINE_DATA : 0);
        MemorySegment s = r.buffer();
        ep.putHeader(s, at, 0, type == Wire.RMA_WRITE ? req.data : 0, flags, len, op.id(), req.rmaIov[0].addr);
        Wire.putLong(s, at + Wire.KEY, req.rmaIov[0].key);
        if (cmaBuffer != null) {
            Wire.putLong(s, at + Wire.LOCAL_ADDRESS, cmaBuffer.address());
        } else {
            Wire.putLong(s, at + Wire.LOCAL_ADDRESS, 0);
            ShmIov.gather(req.iov, req.count, s, at + Wire.RMA_HEADER);
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
        boolean inline = type == Wire.RMA_WRITE && (Wire.getInt(s, at + Wire.FLAGS) & Wire.FLAG_INLINE_DATA) != 0;
        UtilMemoryRegion mr = ep.domain.mrMap.find(key);
        int status;
        if (inline && (len < 0 || len > length - Wire.RMA_HEADER)) {
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
                status = copy(type, peer, mr.segment().address() + off, remote, len);
            } else {
                status = copyPieces(type, peer, mr, off, remote, len, null);
            }
        }
        if (status == 0 && type == Wire.RMA_WRITE && (Wire.getInt(s, at + Wire.FLAGS) & Wire.FLAG_CQ_DATA) != 0) {
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
        return ShmIov.cmaStatus(type == Wire.RMA_WRITE
                ? ep.cma.readFully(peer.pid, local, remote, len)
                : ep.cma.writeFully(peer.pid, local, remote, len));
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
