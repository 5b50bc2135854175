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
 * rma_iov_limit 1; so does a msg form whose range length differs from its buffer's. The inject forms
 * answer ENOSYS: the target copies from the initiator's buffer after the call has returned.
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
        return post(Wire.RMA_WRITE, req);
    }

    private int post(int type, OpRequest req) {
        if ((req.flags & OpFlags.INJECT) != 0) {
            // the target copies from the initiator's buffer after the call returns, which inject forbids
            return -Errno.ENOSYS;
        }
        if (req.count != 1 || req.rmaCount != 1 || req.iov[0] == null
                || req.rmaIov[0].len != req.iov[0].byteSize()) {
            return -Errno.EINVAL;
        }
        MemorySegment buf = req.iov[0];
        if (!buf.isNative()) {
            return -Errno.EINVAL; // the target copies straight into/out of this buffer with CMA
        }
        Peer peer = ep.av.peer(req.peer);
        if (peer == null) {
            return -Errno.EINVAL;
        }
        if (peer.goneForSend()) {
            return -Errno.ECONNRESET;
        }
        if (!peer.cmaWorks) {
            return -Errno.EOPNOTSUPP;
        }
        PendingOp op = inFlight.acquire(ep.bindings.txWantsCompletion(req.flags));
        if (op == null) {
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(type, ShmEndpointState.RMA_RECORD);
        if (at == MpscRing.FULL) {
            inFlight.cancel(op);
            return ShmCm.full(peer);
        }
        op.context = req.context;
        op.completionFlags = OpFlags.RMA | (type == Wire.RMA_READ ? OpFlags.READ : OpFlags.WRITE);
        op.length = buf.byteSize();
        op.peer = peer;
        op.rmaAddr = req.rmaIov[0].addr;
        op.rmaKey = req.rmaIov[0].key;
        boolean hasData = type == Wire.RMA_WRITE && (req.flags & OpFlags.REMOTE_CQ_DATA) != 0;
        MemorySegment s = r.buffer();
        ep.putHeader(s, at, 0, type == Wire.RMA_WRITE ? req.data : 0, hasData ? Wire.FLAG_CQ_DATA : 0, buf.byteSize(), op.id(),
                req.rmaIov[0].addr);
        Wire.putLong(s, at + Wire.KEY, req.rmaIov[0].key);
        Wire.putLong(s, at + Wire.LOCAL_ADDRESS, buf.address());
        r.commit(at);
        peer.doorbell.ring();
        return 0;
    }

    // ---- target ----------------------------------------------------------------------------------

    /** A peer's RMA_READ or RMA_WRITE command. */
    boolean onCommand(int type, MemorySegment s, long at) {
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
        UtilMemoryRegion mr = ep.domain.mrMap.find(key);
        int status;
        if (mr == null) {
            status = Errno.ENOKEY;
        } else {
            long off = mr.resolve(addr, len, type == Wire.RMA_WRITE ? Access.REMOTE_WRITE : Access.REMOTE_READ);
            if (off < 0) {
                status = (int) -off;
            } else if (len == 0) {
                status = 0;
            } else if (mr.segmentCount() == 1) {
                status = copy(type, peer, mr.segment().address() + off, remote, len);
            } else {
                status = copyPieces(type, peer, mr, off, remote, len);
            }
        }
        if (status == 0 && type == Wire.RMA_WRITE && (Wire.getInt(s, at + Wire.FLAGS) & Wire.FLAG_CQ_DATA) != 0) {
            // fi_writedata: the data is in place before the target's completion is visible
            ep.bindings.reportRemote(OpFlags.RMA | OpFlags.REMOTE_WRITE, len, Wire.getLong(s, at + Wire.DATA), true,
                    ep.av == null ? Fabrics.ADDR_NOTAVAIL : ep.av.addrOfSender(sender));
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
     * The range at {@code off} of a multi-segment region's concatenation: one copy per segment it touches,
     * the initiator's buffer advancing with them.
     */
    private int copyPieces(int type, Peer peer, UtilMemoryRegion mr, long off, long remote, long len) {
        int seg = mr.segmentIndex(off);
        long inSeg = off - mr.segmentStart(seg);
        int status = 0;
        while (len > 0 && status == 0) {
            MemorySegment s = mr.segment(seg);
            long piece = Math.min(len, s.byteSize() - inSeg);
            status = copy(type, peer, s.address() + inSeg, remote, piece);
            remote += piece;
            len -= piece;
            seg++;
            inSeg = 0;
        }
        return status;
    }
}
