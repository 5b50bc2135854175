package io.jfabric.provider.rxm;

import io.jfabric.Access;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.provider.rxm.wire.RxmPacket;
import io.jfabric.util.FabricLog;

import java.lang.foreign.MemorySegment;

/**
 * The rendezvous protocol (libfabric's rxm_send_rndv, rxm_handle_rndv and the rndv_rd_done / rndv_wr_data /
 * rndv_wr_done packets): the sender registers its buffers and sends only their ranges. In the read variant
 * the receiver reads them into the matched receive and answers rd_done; in the write variant it registers
 * its own buffers and answers wr_data with their ranges, the sender writes into them and finishes with
 * wr_done. Either way the sender's op lives until the answer arrives, named by its msg_id.
 */
final class RxmRendezvous {
    private static final System.Logger LOG = FabricLog.logger("ofi_rxm");

    private final RxmShared s;
    private final IovCursor local = new IovCursor();
    private final IovCursor remote = new IovCursor();

    RxmRendezvous(RxmShared s) {
        this.s = s;
    }

    // ---- send side

    /** Registers the op's buffers and sends their ranges in a rendezvous request. */
    int send(TxOp op, RxmConnection<Endpoint> c, ConnData cd) {
        try {
            for (int i = 0; i < op.iovCount; i++) {
                long access = s.rndvWrite ? Access.WRITE : Access.REMOTE_READ;
                op.mrs[i] = s.domain.core.registerMemory(op.iov[i], access, 0, s.domain.nextRndvKey(), 0);
                op.mrCount = i + 1;
            }
        } catch (FabricException e) {
            RxmPools.closeMrs(op.mrs, op.mrCount);
            s.pools.releaseTxOp(op);
            return -e.errno();
        }
        TxBuf tb = s.pools.acquireTxBuf();
        RxmPacket.write(tb.hdr, RxmPacket.CTRL_RNDV_REQ, c.remoteIndex(), op.index, op.op, op.pktFlags, op.length,
                op.data, op.tag);
        MemorySegment h = tb.payload;
        // to a peer that may copy from this process, the addresses are always the buffers' own (RxmSameHost)
        boolean offer = cd.sameHostPid != 0 && !s.rndvWrite && allNative(op);
        for (int i = 0; i < op.iovCount; i++) {
            RndvHeader.setIov(h, i, s.coreVirtAddr || offer ? op.iov[i].address() : 0, op.iov[i].byteSize(),
                    op.mrs[i].key());
        }
        RndvHeader.setCount(h, op.iovCount);
        if (offer) {
            RxmPacket.setCtrlData(tb.hdr, RxmSameHost.NATIVE_BUFFERS);
        }
        tb.pending = tb.rndvPkt;
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        int rc = c.ep().send(tb.pending, tb.mr, 0, tb);
        if (rc != 0) {
            s.pools.releaseTxBuf(tb);
            RxmPools.closeMrs(op.mrs, op.mrCount);
            op.mrCount = 0;
            s.pools.releaseTxOp(op);
            return rc;
        }
        tb.op = op;
        // the request's send completion, plus rd_done (read) or wr_data (write) from the receiver
        op.pending = 2;
        op.state = s.rndvWrite ? TxOp.WAIT_WR_DATA : TxOp.WAIT_RD_DONE;
        cd.link(op);
        return 0;
    }

    private static boolean allNative(TxOp op) {
        for (int i = 0; i < op.iovCount; i++) {
            if (!op.iov[i].isNative()) {
                return false;
            }
        }
        return true;
    }

    /** rndv_rd_done: the receiver has read the op's buffers. */
    void onRdDone(RxmConnection<Endpoint> c, long msgId) {
        TxOp op = s.pools.txOp(msgId);
        if (op == null) {
            s.cm.protocolError(c, "rndv_rd_done for message " + msgId + " which was never sent");
            return;
        }
        if (op.state != TxOp.WAIT_RD_DONE || op.conn != c) {
            LOG.log(System.Logger.Level.WARNING, "ignoring rndv_rd_done for message {0} from {1}", msgId, c.peer());
            return;
        }
        op.state = TxOp.ACTIVE;
        s.transmit.step(op, 0);
    }

    /** rndv_wr_data: the receiver's ranges; the op's data is written into them. */
    void onWrData(RxBuf rx, RxmConnection<Endpoint> c) {
        long msgId = RxmPacket.msgId(rx.mem);
        TxOp op = s.pools.txOp(msgId);
        if (op == null || op.state != TxOp.WAIT_WR_DATA || op.conn != c
                || rx.len < RxmPacket.SIZE + RndvHeader.SIZE) {
            s.cm.protocolError(c, "rndv_wr_data for message " + msgId + " which is not waiting for it");
            return;
        }
        MemorySegment h = rx.rndvHeader();
        int rc = RndvHeader.count(h);
        long target = Math.min(op.length, Math.max(0, RndvHeader.totalLength(h)));
        op.state = TxOp.WRITING;
        Endpoint core = c.ep();
        long off = 0;
        while (off < target) {
            remote.seekRemote(h, rc, off);
            local.seek(op.iov, op.iovCount, off);
            int ri = remote.index;
            int li = local.index;
            long n = Math.min(Math.min(RndvHeader.len(h, ri) - remote.skip, op.iov[li].byteSize() - local.skip),
                    target - off);
            int w = core.write(op.iov[li].asSlice(local.skip, n), op.mrs[li], 0, RndvHeader.addr(h, ri) + remote.skip,
                    RndvHeader.key(h, ri), op);
            if (w != 0) {
                // a write-rendezvous transfer cannot be deferred half-way here; fail it
                op.error = w == -Errno.EAGAIN ? Errno.EAGAIN : -w;
                break;
            }
            op.pending++;
            off += n;
        }
        s.transmit.step(op, 0); // the wr_data itself
    }

    // ---- receive side

    /** A rendezvous request arrived in {@code rx}: matched, or kept as unexpected. The buffer is kept either way. */
    boolean arrived(RxBuf rx, RxmConnection<Endpoint> c, ConnData cd, long size, boolean tagged, long tag,
                    long data, boolean hasData) {
        long src = s.cm.srcOf(c);
        RecvEntry t = s.recv.match(tagged, src, tag, size);
        if (t != null) {
            t.describeMessage(tagged, tag, data, hasData, src);
            start(t, rx, c, cd);
            return true;
        }
        s.recv.queueUnexpected(Unexpected.RNDV, rx, c, cd, RxmPacket.SIZE, 0, size, tagged, tag, data, hasData, src);
        return true;
    }

    /** A receive meets a rendezvous request that arrived first. */
    void deliverUnexpected(RecvEntry t, Unexpected u) {
        t.describeMessage(u.tagged, u.tag, u.data, u.hasData, u.src);
        if (u.generation != u.cd.generation || u.conn.ep() == null) {
            s.recv.fail(t, Errno.ECONNRESET, true);
            s.recv.releaseUnexpected(u);
            return;
        }
        RxBuf rx = u.first;
        u.first = null;
        RxmConnection<Endpoint> c = u.conn;
        ConnData cd = u.cd;
        s.recv.releaseUnexpected(u); // counts the buffer out of the unexpected bound; rx now belongs to t
        start(t, rx, c, cd);
    }

    /** An unexpected request is dropped (FI_DISCARD): the sender still learns its buffer is free. */
    void discard(Unexpected u) {
        if (u.generation == u.cd.generation && u.conn.ep() != null) {
            s.transmit.sendCtrl(u.conn, u.cd, RxmPacket.CTRL_RNDV_RD_DONE, RxmPacket.msgId(u.first.mem));
        }
    }

    private static long readTarget(RecvEntry t) {
        return Math.min(t.msgSize, t.capacity);
    }

    private void start(RecvEntry t, RxBuf rx, RxmConnection<Endpoint> c, ConnData cd) {
        t.rndvReq = rx;
        t.beginMessage(RxmPacket.msgId(rx.mem), RxmPacket.size(rx.mem), c, cd);
        t.readIov = 0;
        t.readOffset = 0;
        t.pendingReads = 0;
        if (s.rndvWrite) {
            startWrite(t, c, cd);
            return;
        }
        t.nextActive = cd.activeRecv;
        cd.activeRecv = t;
        if (offered(t) && s.sameHost.copy(cd.sameHostPid, rx.rndvHeader(), t.iov, t.count, readTarget(t))) {
            t.readOffset = readTarget(t);
            finishRecv(t);
            return;
        }
        issueReads(t);
        if (t.error != 0 && t.pendingReads == 0) {
            finishRecv(t);
        } else if (t.readOffset < readTarget(t)) {
            s.cm.defer(c, cd, t);
        } else if (t.pendingReads == 0) {
            finishRecv(t);
        }
    }

    /** Whether {@code t}'s request came from a same-host peer with its buffers' own addresses (RxmSameHost). */
    private static boolean offered(RecvEntry t) {
        return t.cd.sameHostPid != 0 && RxmPacket.ctrlData(t.rndvReq.mem) == RxmSameHost.NATIVE_BUFFERS;
    }

    /** A deferred receive's next try: false while reads are left and the core still says EAGAIN. */
    boolean retry(RecvEntry t) {
        issueReads(t);
        return t.orphan || t.error != 0 || t.readOffset >= readTarget(t);
    }

    /** Posts RMA reads of the sender's buffers into the receive's buffers, from {@code readOffset} on. */
    private void issueReads(RecvEntry t) {
        if (t.orphan || t.error != 0) {
            return;
        }
        Endpoint core = t.conn.ep();
        if (core == null || t.generation != t.cd.generation) {
            t.error = Errno.ECONNRESET;
            return;
        }
        MemorySegment h = t.rndvReq.rndvHeader();
        int remoteCount = RndvHeader.count(h);
        long target = readTarget(t);
        // a core that addresses registrations by offset reads each offered buffer from its start
        boolean offsets = !s.coreVirtAddr && offered(t);
        while (t.readOffset < target) {
            long off = t.readOffset;
            remote.seekRemote(h, remoteCount, off);
            local.seek(t.iov, t.count, off);
            int ri = remote.index;
            int li = local.index;
            if (ri >= remoteCount || li >= t.count) {
                t.error = Errno.EIO;
                return;
            }
            long lskip = local.skip;
            long n = Math.min(Math.min(RndvHeader.len(h, ri) - remote.skip, t.iov[li].byteSize() - lskip), target - off);
            MemorySegment dst = lskip == 0 && n == t.iov[li].byteSize() ? t.iov[li] : t.iov[li].asSlice(lskip, n);
            long base = offsets ? 0 : RndvHeader.addr(h, ri);
            int rc = core.read(dst, t.desc[li], 0, base + remote.skip, RndvHeader.key(h, ri), t);
            if (rc == -Errno.EAGAIN) {
                return;
            }
            if (rc != 0) {
                t.error = -rc;
                return;
            }
            t.pendingReads++;
            t.readOffset += n;
        }
    }

    /** A core read of a rendezvous completed. */
    void readDone(RecvEntry t, int err) {
        if (t.orphan) {
            return;
        }
        t.pendingReads--;
        if (err != 0 && t.error == 0) {
            t.error = err;
        }
        if (t.pendingReads == 0 && (t.readOffset >= readTarget(t) || t.error != 0)) {
            finishRecv(t);
        }
    }

    private void finishRecv(RecvEntry t) {
        ConnData cd = t.cd;
        if (cd.activeRecv == t) {
            cd.activeRecv = t.nextActive;
        } else {
            RecvEntry x = cd.activeRecv;
            while (x != null && x.nextActive != t) {
                x = x.nextActive;
            }
            if (x != null) {
                x.nextActive = t.nextActive;
            }
        }
        if (t.error == 0 || t.error == Errno.ETRUNC) {
            // tell the sender its buffer is free, even when we took less than it sent
            s.transmit.sendCtrl(t.conn, cd, RxmPacket.CTRL_RNDV_RD_DONE, t.msgId);
        }
        if (t.error != 0) {
            s.recv.fail(t, t.error, true);
            return;
        }
        complete(t);
    }

    /** The data is in: the request buffer goes back to its connection and the receive completes. */
    private void complete(RecvEntry t) {
        RxBuf rx = t.rndvReq;
        t.rndvReq = null;
        s.rxBuffers.repost(rx);
        s.recv.complete(t, t.msgSize, readTarget(t), t.msgTag, t.msgData, t.msgHasData, t.msgSrc, t.conn);
    }

    /** The write variant: registers the receive's buffers and sends their ranges in rndv_wr_data. */
    private void startWrite(RecvEntry t, RxmConnection<Endpoint> c, ConnData cd) {
        long target = readTarget(t);
        TxBuf tb = s.pools.acquireTxBuf();
        RxmPacket.write(tb.hdr, RxmPacket.CTRL_RNDV_WR_DATA, c.remoteIndex(), t.msgId, 0, 0, 0, 0, 0);
        MemorySegment h = tb.payload;
        long left = target;
        int n = 0;
        try {
            for (int i = 0; i < t.count && left > 0; i++) {
                long len = Math.min(left, t.iov[i].byteSize());
                MemorySegment seg = t.iov[i].asSlice(0, len);
                t.mrs[i] = s.domain.core.registerMemory(seg, Access.REMOTE_WRITE, 0, s.domain.nextRndvKey(), 0);
                t.mrCount = i + 1;
                RndvHeader.setIov(h, n++, s.coreVirtAddr ? seg.address() : 0, len, t.mrs[i].key());
                left -= len;
            }
        } catch (FabricException e) {
            s.pools.releaseTxBuf(tb);
            t.error = e.errno();
            s.recv.fail(t, t.error, true);
            return;
        }
        RndvHeader.setCount(h, n);
        tb.pending = tb.rndvPkt;
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        t.waitingWrDone = true;
        t.nextActive = cd.rndvWait;
        cd.rndvWait = t;
        s.transmit.postOrDefer(tb);
    }

    /** rndv_wr_done: the sender has written into the receive's buffers. */
    void onWrDone(ConnData cd, long msgId) {
        RecvEntry prev = null;
        for (RecvEntry t = cd.rndvWait; t != null; prev = t, t = t.nextActive) {
            if (t.msgId == msgId) {
                if (prev == null) {
                    cd.rndvWait = t.nextActive;
                } else {
                    prev.nextActive = t.nextActive;
                }
                RxmPools.closeMrs(t.mrs, t.mrCount);
                t.mrCount = 0;
                complete(t);
                return;
            }
        }
        LOG.log(System.Logger.Level.WARNING, "rndv_wr_done for unknown message {0}", msgId);
    }
}
