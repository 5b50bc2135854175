package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.RmaIov;
import io.jfabric.RmaMsg;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.provider.rxm.wire.RxmPacket;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.OpRequest;
import io.jfabric.util.RmaFailure;
import io.jfabric.util.Sockaddr;
import io.jfabric.util.UtilCompletionQueue;
import io.jfabric.util.jfr.ProtocolTransferEvent;

/**
 * The one transmit path (libfabric's rxm_send_common and rxm_ep_rma_common): takes a send or an RMA from
 * the entry points, gets its connection ready, picks the protocol and hands the op to it; posts packets to
 * the core or defers them; and finishes ops when the core's completions (and the peer's rendezvous
 * answers) are all in, reporting through the endpoint's bindings.
 */
final class RxmTransmit {
    private final RxmShared s;
    private final EndpointBindings bindings;
    /** The core msg of an RMA with several ranges, or with remote CQ data over several buffers. */
    private final RmaMsg coreRmaMsg = new RmaMsg(0);
    /** Why {@link #connected} gave no connection (a negative errno); only read right after it returns null. */
    private int refusal;

    RxmTransmit(RxmShared s) {
        this.s = s;
        this.bindings = s.bindings;
    }

    /**
     * The connection to {@code peer} once it is up (rxm_get_conn), or null with the errno to return in
     * {@link #refusal}: EOPBADSTATE before enable or after close, EINVAL for an address not in the AV,
     * EAGAIN while connecting, or the errno of a connect that failed.
     */
    RxmConnection<Endpoint> connected(long peer, boolean tagged) {
        if (!s.enabled || s.closed) {
            refusal = -Errno.EOPBADSTATE;
            return null;
        }
        RxmConnection<Endpoint> c = s.cm.connFor(peer);
        if (c == null) {
            refusal = -Errno.EINVAL;
            return null;
        }
        int rc = s.cm.ready(c, RxmCm.data(c), tagged);
        if (rc != 0) {
            refusal = rc;
            return null;
        }
        return c;
    }

    /** The negative errno of the last {@link #connected} that gave no connection. */
    int refusal() {
        return refusal;
    }

    /**
     * A pool op for request {@code r}, to be reported with {@code cqFlags}: a success entry unless it came
     * through an fi_inject call or selective completion leaves it out, and then with its transmit-CQ slot
     * promised now, so more posts than the CQ holds get EAGAIN instead of overrunning it (as tcp). Null when every op is in flight
     * or the CQ has no slot left (then progress runs, so the caller's retry finds some back).
     */
    private TxOp newOp(OpRequest r, long cqFlags) {
        TxOp op = s.pools.acquireTxOp();
        if (op == null) {
            s.progress.run();
            return null;
        }
        op.context = r.context;
        op.cqFlags = cqFlags;
        op.report = bindings.txWantsCompletion(r.flags);
        UtilCompletionQueue cq = op.report ? bindings.txCq() : null;
        if (cq != null) {
            if (!cq.tryReserve()) {
                s.pools.releaseTxOp(op);
                s.progress.run();
                return null;
            }
            op.slotCq = cq;
        }
        return op;
    }

    /** rxm_send_common: one send or tagged send, of any protocol. */
    int send(boolean tagged, OpRequest r) {
        if (r.count > RndvHeader.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        RxmConnection<Endpoint> c = connected(r.peer, tagged);
        if (c == null) {
            return refusal;
        }
        ConnData cd = RxmCm.data(c);
        if (!cd.deferred.isEmpty()) {
            s.progress.run();
            if (!cd.deferred.isEmpty() || !c.isConnected()) {
                return -Errno.EAGAIN;
            }
        }
        long len = r.length();
        boolean inject = (r.flags & OpFlags.INJECT) != 0;
        if (inject && len > s.injectSize) {
            return -Errno.EMSGSIZE;
        }
        // delivery complete: the rendezvous completes only once the receiver has read the data into its buffer
        // (an inject reports no completion and must not leave its buffer to the receiver, and a message without
        // data has nothing to read: those stay eager)
        int proto = (r.flags & OpFlags.DELIVERY_COMPLETE) != 0 && !inject && len > 0 ? s.selector.rendezvous()
                : s.selector.select(tagged, len, r.count);
        TxOp op = newOp(r, OpFlags.SEND | (tagged ? OpFlags.TAGGED : OpFlags.MSG));
        if (op == null) {
            return -Errno.EAGAIN;
        }
        op.op = tagged ? RxmPacket.OP_TAGGED : RxmPacket.OP_MSG;
        op.proto = proto;
        op.tag = r.tag;
        op.data = r.data;
        op.pktFlags = (r.flags & OpFlags.REMOTE_CQ_DATA) != 0 ? RxmPacket.FLAG_REMOTE_CQ_DATA : 0;
        op.length = len;
        op.iovCount = r.count;
        for (int i = 0; i < r.count; i++) {
            op.iov[i] = r.iov[i];
            op.desc[i] = r.desc == null ? null : r.desc[i];
        }
        op.conn = c;
        op.cd = cd;
        op.generation = cd.generation;
        int rc = switch (proto) {
            case ProtocolSelector.RAW_TAGGED -> s.eager.sendRawTagged(op, c.ep(), inject, more(r, cd));
            case ProtocolSelector.EAGER -> s.eager.send(op, c, cd, inject, more(r, cd));
            case ProtocolSelector.SAR -> s.sar.send(beginTransfer(op), c, cd);
            default -> s.rndv.send(beginTransfer(op), c, cd);
        };
        if (rc == -Errno.EAGAIN) {
            s.progress.run();
        }
        return rc;
    }

    /**
     * FI_MORE of an eager send goes on to the core with its packet: the core can hold it back until the burst's
     * last post (tcp writes the burst in one system call). Over a core that leaves the choice to rxm
     * ({@link ConnData#coreHoldsBursts}) a send that follows another with no progress run between them goes with
     * FI_MORE too, so the burst waits for the next run.
     */
    private boolean more(OpRequest r, ConnData cd) {
        return (r.flags & OpFlags.MORE) != 0 || cd.coreHoldsBursts && s.progress.burstContinues();
    }

    /**
     * Starts the op's jfabric.ProtocolTransfer event when it is recorded; only SAR and rendezvous ops come
     * here, so the eager path never asks.
     */
    private static TxOp beginTransfer(TxOp op) {
        if (ProtocolTransferEvent.GATE.isRecorded()) {
            ProtocolTransferEvent e = new ProtocolTransferEvent();
            e.begin();
            op.transfer = e;
        }
        return op;
    }

    /** Ends the op's transfer event, committed if it took longer than the recording's threshold. */
    private static void endTransfer(TxOp op, int err) {
        ProtocolTransferEvent e = op.transfer;
        op.transfer = null;
        e.end();
        if (e.shouldCommit()) {
            e.provider = "ofi_rxm";
            e.protocol = ProtocolSelector.name(op.proto);
            e.size = op.length;
            e.peer = op.conn == null ? null : Sockaddr.straddr(op.conn.peer().addr());
            e.err = err;
            e.commit();
        }
    }

    /** rxm_ep_rma_common: an RMA read or write, posted on the peer's core endpoint with the op as context. */
    int rma(boolean write, OpRequest r) {
        RxmConnection<Endpoint> c = connected(r.peer, false);
        if (c == null) {
            return refusal;
        }
        ConnData cd = RxmCm.data(c);
        int rc;
        TxOp op = newOp(r, OpFlags.RMA | (write ? OpFlags.WRITE : OpFlags.READ));
        if (op == null) {
            return -Errno.EAGAIN;
        }
        op.proto = -1;
        op.conn = c;
        op.cd = cd;
        op.generation = cd.generation;
        op.iovCount = 0;
        if (r.rmaCount > 0) {
            // kept for the error's err_data: what the initiator can tell if the target drops the connection
            op.length = r.rmaIov[0].len;
            op.remoteAddr[0] = r.rmaIov[0].addr;
            op.remoteKey[0] = r.rmaIov[0].key;
        }
        Endpoint core = c.ep();
        boolean hasData = (r.flags & OpFlags.REMOTE_CQ_DATA) != 0;
        MemoryRegion desc0 = r.desc == null || r.count == 0 ? null : r.desc[0];
        RmaIov remote = r.rmaCount == 1 ? r.rmaIov[0] : null;
        boolean inject = write && (r.flags & OpFlags.INJECT) != 0;
        // a window of reads or writes posted back to back leaves in one write at the next run, as sends do
        long flags = more(r, cd) ? r.flags | OpFlags.MORE : r.flags;
        if (inject && !op.report && remote != null && r.count == 1) {
            rc = hasData ? core.injectWritedata(r.iov[0], r.data, 0, remote.addr, remote.key)
                    : core.injectWrite(r.iov[0], 0, remote.addr, remote.key);
            s.pools.releaseTxOp(op);
            return rc;
        }
        // a level above transmit complete goes with the msg form, so the core honours it or refuses it; so do
        // FI_MORE and an inject that reports (fi_writemsg with FI_INJECT), so the core copies the buffer now
        boolean plain = (flags & (OpFlags.DELIVERY_COMPLETE | OpFlags.MORE)) == 0 && !inject;
        if (plain && remote != null && r.count == 1) {
            rc = !write ? core.read(r.iov[0], desc0, 0, remote.addr, remote.key, op)
                    : hasData ? core.writedata(r.iov[0], desc0, r.data, 0, remote.addr, remote.key, op)
                    : core.write(r.iov[0], desc0, 0, remote.addr, remote.key, op);
        } else if (plain && remote != null && !hasData) {
            rc = write ? core.writev(r.iov, r.desc, r.count, 0, remote.addr, remote.key, op)
                    : core.readv(r.iov, r.desc, r.count, 0, remote.addr, remote.key, op);
        } else {
            RmaMsg m = coreRmaMsg;
            m.iov = r.iov; // the caller's arrays, borrowed for the call: the core copies what it keeps
            m.desc = r.desc;
            m.iovCount = r.count;
            m.rmaIov = r.rmaIov;
            m.rmaIovCount = r.rmaCount;
            m.addr = 0; // the core endpoint is connected: no address
            m.data = r.data;
            m.context = op;
            rc = write ? core.writemsg(m, flags) : core.readmsg(m, flags);
            m.iov = null;
            m.desc = null;
            m.rmaIov = null;
            m.context = null;
        }
        if (rc != 0) {
            s.pools.releaseTxOp(op);
            if (rc == -Errno.EAGAIN) {
                s.progress.run();
            }
            return rc;
        }
        op.pending = 1;
        cd.link(op);
        return 0;
    }

    // ---- packets

    /** Posts a prepared packet on its connection's core endpoint. */
    int post(TxBuf tb) {
        Endpoint core = tb.conn.ep();
        if (core == null || tb.generation != tb.cd.generation) {
            return -Errno.ECONNRESET;
        }
        return tb.directCount > 0 ? core.sendv(tb.directIov, null, tb.directCount, 0, tb)
                : core.send(tb.pending, tb.mr, 0, tb);
    }

    /** Posts now, or queues behind what is already deferred on the connection; never fails with EAGAIN. */
    void postOrDefer(TxBuf tb) {
        ConnData cd = tb.cd;
        if (cd.deferred.isEmpty()) {
            int rc = post(tb);
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                bufDone(tb, -rc);
                return;
            }
        }
        s.cm.defer(tb.conn, cd, tb);
    }

    /** A deferred packet's next try: false while the core still says EAGAIN. */
    boolean retry(TxBuf tb) {
        int rc = post(tb);
        if (rc == -Errno.EAGAIN) {
            return false;
        }
        if (rc < 0) {
            bufDone(tb, -rc);
        }
        return true;
    }

    /** A header-only control packet (rendezvous done, write data) for message {@code msgId}. */
    void sendCtrl(RxmConnection<Endpoint> c, ConnData cd, int type, long msgId) {
        TxBuf tb = s.pools.acquireTxBuf();
        RxmPacket.write(tb.hdr, type, c.remoteIndex(), msgId, 0, 0, 0, 0, 0);
        tb.pending = tb.hdr;
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        postOrDefer(tb);
    }

    // ---- completion

    /** A core completion of one of the op's own posts (headerless tagged send, RMA, rendezvous write). */
    void opCoreDone(TxOp op, int err) {
        if (op.state == TxOp.ORPHAN || op.state == TxOp.FREE) {
            return;
        }
        step(op, err);
    }

    /** A core completion of a transmit buffer. */
    void bufDone(TxBuf tb, int err) {
        if (tb.orphan) {
            return;
        }
        TxOp op = tb.op;
        s.pools.releaseTxBuf(tb);
        if (op == null || op.state == TxOp.ORPHAN || op.state == TxOp.FREE) {
            return;
        }
        step(op, err);
    }

    /** One of the op's outstanding events happened; the op finishes with its last one. */
    void step(TxOp op, int err) {
        op.pending--;
        if (err != 0 && op.error == 0) {
            op.error = err;
        }
        if (op.pending > 0) {
            return;
        }
        if (op.proto == ProtocolSelector.SAR && op.nextSeg < op.segCount && op.error == 0) {
            return;
        }
        if (op.state == TxOp.WRITING && op.error == 0) {
            sendCtrl(op.conn, op.cd, RxmPacket.CTRL_RNDV_WR_DONE, op.index);
        }
        if (op.error != 0 && op.proto == ProtocolSelector.SAR) {
            op.cd.deferred.remove(op);
        }
        finish(op);
    }

    /**
     * Reports a finished op and frees it. A success entry has len 0: fi_cq(3) gives len a meaning only for
     * receives and for remote-CQ-data writes at the target, and libfabric's rxm reports 0 too.
     */
    void finish(TxOp op) {
        if (op.transfer != null) {
            endTransfer(op, op.error);
        }
        op.cd.unlink(op);
        RxmPools.closeMrs(op.mrs, op.mrCount);
        op.mrCount = 0;
        boolean reserved = takeSlot(op);
        if (op.error != 0) {
            bindings.reportTxError(reserved, op.context, op.cqFlags, 0, op.error, op.error, rmaLead(op, op.error));
        } else if (op.report) {
            // op.report already applied selective completion at post time
            bindings.reportTx(true, reserved, op.context, op.cqFlags, 0);
        } else {
            bindings.countTx(op.cqFlags);
        }
        s.pools.releaseTxOp(op);
    }

    /** An op whose connection failed: reported, and its pool slot gets a fresh TxOp so late completions are harmless. */
    void fail(TxOp op, int errno) {
        if (op.transfer != null) {
            endTransfer(op, errno);
        }
        RxmPools.closeMrs(op.mrs, op.mrCount);
        op.mrCount = 0;
        if (op.state != TxOp.ORPHAN) {
            bindings.reportTxError(takeSlot(op), op.context, op.cqFlags, 0, errno, errno, rmaLead(op, errno));
        }
        op.state = TxOp.ORPHAN;
        op.context = null;
        s.pools.replaceOrphan(op);
    }

    /** Whether a CQ slot was promised to the op, which its report now fills (so its release returns none). */
    private static boolean takeSlot(TxOp op) {
        boolean reserved = op.slotCq != null;
        op.slotCq = null;
        return reserved;
    }

    /**
     * The err_data of a failed RMA. A connection that went down: on a core wire without RMA status (tcp) that is
     * how the target refuses it. A refusal the core reports (verbs' remote access error, FI_EACCES): the target's
     * verdict. Either way the key and address it was sent to are the user's lead. Error path only.
     */
    private static byte[] rmaLead(TxOp op, int errno) {
        if ((op.cqFlags & OpFlags.RMA) == 0) {
            return null;
        }
        boolean read = (op.cqFlags & OpFlags.READ) != 0;
        return switch (errno) {
            case Errno.ECONNRESET -> RmaFailure.dropped(read, op.length, op.remoteAddr[0], op.remoteKey[0]);
            case Errno.EACCES, Errno.ENOKEY, Errno.EINVAL ->
                    RmaFailure.refused(read, errno, op.length, op.remoteAddr[0], op.remoteKey[0]);
            default -> null;
        };
    }

    /** The connection of {@code cd} went down: every op in flight on it fails with {@code errno}; returns how many. */
    int connectionLost(ConnData cd, int errno) {
        int n = 0;
        for (TxOp op = cd.inflight; op != null; ) {
            TxOp next = op.next;
            fail(op, errno);
            op = next;
            n++;
        }
        cd.inflight = null;
        return n;
    }
}
