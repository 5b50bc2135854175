package io.jfabric.provider.verbs;

import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.generated.ibv_context_ops;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_cap;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_init_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_recv_wr;
import io.jfabric.provider.verbs.ffi.generated.ibv_send_wr;
import io.jfabric.provider.verbs.ffi.generated.ibv_sge;
import io.jfabric.provider.verbs.ffi.generated.ibv_wc;
import io.jfabric.provider.verbs.ffi.generated.rdma_cm_id;
import io.jfabric.provider.verbs.ffi.rdma_cma_h;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.FabricLog;
import io.jfabric.util.OpRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;

/**
 * An endpoint's RC queue pair: its creation on the rdma_cm id, the preallocated {@code ibv_send_wr}/
 * {@code ibv_recv_wr} and scatter/gather lists that every post fills, posting through the ops-table pointers
 * (read once when the QP is created), and the translation of its work completions into the bound CQs.
 * {@link #send} and {@link #recv} check the request's buffers, then the connection's state, then post.
 */
final class VerbsQp {
    private static final System.Logger LOG = FabricLog.logger("verbs");
    /** Marks receive work requests in wr_id (the low bits hold the ring slot). */
    private static final long RX_BIT = 1L << 62;
    private static final int CLOSE_DRAIN_MS = 500;
    /** The context of a keepalive probe's slot: its completion is the provider's, not the user's. */
    private static final Object PROBE = new Object();

    private final VerbsCm cm;
    final int txSize;
    final int rxSize;
    private final int iovLimit;
    private final int rxIovLimit;
    private final long injectSize;

    private MemorySegment qp;
    private int qpNum = -1;
    private MemorySegment postSendFn;
    private MemorySegment postRecvFn;
    private int maxInline;
    private int unsignaled;
    private boolean rnrTimerSet;
    private VerbsCq txCq;
    private VerbsCq rxCq;
    /** The endpoint's CQs (and, one day, counters): every completion is reported through them. */
    private EndpointBindings bindings;
    /** The shared receive context whose ibv_srq this QP takes its receives from, or null. */
    private VerbsSharedRx srx;

    private final MemorySegment sendWr;
    private final MemorySegment sendSges;
    private final MemorySegment recvWr;
    private final MemorySegment recvSges;
    private final MemorySegment badWr;
    private final TxRing tx;
    private final TxRing rx;
    /** When this queue pair may probe its connection again ({@link #keepalive}). */
    private long nextProbe;
    /** What the last fill prepared for the post that follows it: the SGE count and the total length. */
    private int filledSges;
    private long filledLength;
    /** The operands {@link #atomic} prepared for the post that follows it. */
    private long atomicCompareAdd;
    private long atomicSwap;

    /** @param cm the connection, whose state says whether a post may go out now */
    VerbsQp(VerbsCm cm, Arena arena, int txSize, int rxSize, int iovLimit, int rxIovLimit, long injectSize) {
        this.cm = cm;
        this.txSize = txSize;
        this.rxSize = rxSize;
        this.iovLimit = iovLimit;
        this.rxIovLimit = rxIovLimit;
        this.injectSize = injectSize;
        sendWr = ibv_send_wr.allocate(arena);
        sendSges = ibv_sge.allocateArray(iovLimit, arena);
        recvWr = ibv_recv_wr.allocate(arena);
        recvSges = ibv_sge.allocateArray(rxIovLimit, arena);
        badWr = arena.allocate(ValueLayout.ADDRESS);
        tx = new TxRing(txSize);
        rx = new TxRing(rxSize);
    }

    boolean created() {
        return qp != null;
    }

    int qpNum() {
        return qpNum;
    }

    MemorySegment handle() {
        return qp;
    }

    /** Before {@link #create}: the QP takes its receives from {@code shared}'s ibv_srq. */
    void useSharedRx(VerbsSharedRx shared) {
        srx = shared;
    }

    /** The receive queue's depth, the SRQ's when the QP has one: what the receive CQ must hold. */
    private int rxDepth() {
        return srx == null ? rxSize : srx.size;
    }

    /** Creates the RC QP on {@code id} with the CQs bound in {@code bound} and reads the ops table once. */
    void create(MemorySegment id, MemorySegment pd, EndpointBindings bound, Arena arena, MemorySegment errno) {
        VerbsCq sendCq = (VerbsCq) bound.txCq();
        VerbsCq recvCq = (VerbsCq) bound.rxCq();
        MemorySegment attr = ibv_qp_init_attr.allocate(arena);
        ibv_qp_init_attr.send_cq(attr, sendCq.ibvCq());
        ibv_qp_init_attr.recv_cq(attr, recvCq.ibvCq());
        ibv_qp_init_attr.qp_type(attr, verbs_h.IBV_QPT_RC);
        ibv_qp_init_attr.sq_sig_all(attr, 0);
        if (srx != null) {
            ibv_qp_init_attr.srq(attr, srx.ibvSrq()); // the receive queue's sizes are then ignored
        }
        MemorySegment cap = ibv_qp_init_attr.cap(attr);
        ibv_qp_cap.max_send_wr(cap, txSize);
        ibv_qp_cap.max_recv_wr(cap, rxSize);
        ibv_qp_cap.max_send_sge(cap, iovLimit);
        ibv_qp_cap.max_recv_sge(cap, rxIovLimit);
        ibv_qp_cap.max_inline_data(cap, (int) injectSize);
        Native.checkCm(rdma_cma_h.rdma_create_qp(errno, id, pd, attr), errno, "rdma_create_qp (tx " + txSize
                + ", rx " + rxSize + ", sge " + iovLimit + ", inline " + injectSize + ")");
        maxInline = ibv_qp_cap.max_inline_data(cap);
        qp = ibv_qp.reinterpret(rdma_cm_id.qp(id));
        qpNum = ibv_qp.qp_num(qp);
        MemorySegment ops = ibv_context.ops(ibv_context.reinterpret(ibv_qp.context(qp)));
        postSendFn = ibv_context_ops.post_send(ops);
        postRecvFn = ibv_context_ops.post_recv(ops);
        txCq = sendCq;
        rxCq = recvCq;
        bindings = bound;
        txCq.register(this);
        rxCq.register(this);
        txCq.addDepth(txSize);
        rxCq.addDepth(rxDepth());
    }

    // ---- posting ------------------------------------------------------------------------------

    /** Posts {@code op}'s buffers as one send-queue work request of {@code opcode}; 0 or a negative errno. */
    int send(OpRequest op, int opcode, long raddr, long rkey, long opFlags, long compFlags) {
        int rc = fillSend(op);
        if (rc == 0) {
            rc = cm.txReady();
        }
        return rc != 0 ? rc : postSend(opcode, op.data, raddr, rkey, op.context, opFlags, compFlags);
    }

    /**
     * Posts one work request of {@code opcode} on the 8 bytes at {@code raddr} with the one local buffer
     * {@code local} (key {@code lkey}): an RC atomic (IBV_WR_ATOMIC_FETCH_AND_ADD or _CMP_AND_SWP, whose previous
     * value lands in {@code local}), or the RDMA read or write of fi_atomic's FI_ATOMIC_READ and FI_ATOMIC_WRITE.
     */
    int atomic(int opcode, MemorySegment local, int lkey, long raddr, long rkey, long compareAdd, long swap,
               Object ctx, long opFlags, long compFlags) {
        if (qp == null) {
            return -Errno.ENOTCONN;
        }
        MemorySegment sge = ibv_sge.asSlice(sendSges, 0);
        ibv_sge.addr(sge, local.address());
        ibv_sge.length(sge, (int) local.byteSize());
        ibv_sge.lkey(sge, lkey);
        filledSges = 1;
        filledLength = local.byteSize();
        atomicCompareAdd = compareAdd;
        atomicSwap = swap;
        int rc = cm.txReady();
        return rc != 0 ? rc : postSend(opcode, 0, raddr, rkey, ctx, opFlags, compFlags);
    }

    /** Posts {@code op}'s buffers as one receive work request; 0 or a negative errno. */
    int recv(OpRequest op) {
        int rc = fillRecv(op);
        if (rc == 0) {
            rc = cm.rxReady();
        }
        return rc != 0 ? rc : postRecv(op.context);
    }

    /** Fills the send SGE list from {@code op}; 0, or a negative errno (ENOTCONN before enable, EINVAL). */
    private int fillSend(OpRequest op) {
        if (qp == null) {
            return -Errno.ENOTCONN;
        }
        return fill(sendSges, iovLimit, op, (op.flags & OpFlags.INJECT) != 0);
    }

    /** Fills the receive SGE list from {@code op}; receives may be posted once enabled, before connect/accept. */
    private int fillRecv(OpRequest op) {
        if (qp == null) {
            return -Errno.EOPBADSTATE;
        }
        return fill(recvSges, rxIovLimit, op, false);
    }

    private int fill(MemorySegment sges, int limit, OpRequest op, boolean inline) {
        int count = op.count;
        if (count > limit) {
            return -Errno.EINVAL; // at most the info's iov_limit buffers, the QP's max SGEs
        }
        MemoryRegion[] desc = op.desc;
        long total = 0;
        for (int i = 0; i < count; i++) {
            long n = fillSge(sges, i, op.iov[i], desc == null ? null : desc[i], inline);
            if (n < 0) {
                return (int) n;
            }
            total += n;
        }
        filledSges = total == 0 ? 0 : count; // a zero-length work request carries no SGE
        filledLength = total;
        return 0;
    }

    /** Puts one buffer in sge {@code i}; returns its length, or a negative errno. */
    static long fillSge(MemorySegment sges, int i, MemorySegment buf, MemoryRegion desc, boolean inline) {
        if (buf == null || !buf.isNative()) {
            return -Errno.EINVAL; // the NIC cannot reach heap memory
        }
        MemorySegment sge = ibv_sge.asSlice(sges, i);
        ibv_sge.addr(sge, buf.address());
        ibv_sge.length(sge, (int) buf.byteSize());
        if (buf.byteSize() == 0) {
            ibv_sge.lkey(sge, 0); // the NIC touches no byte of an empty buffer: no registration needed
            return 0;
        }
        if (desc instanceof VerbsMemoryRegion mr) {
            if (!mr.covers(buf)) {
                return -Errno.EINVAL;
            }
            ibv_sge.lkey(sge, mr.lkey());
        } else if (inline) {
            ibv_sge.lkey(sge, 0); // inline data is copied by the CPU: no key needed
        } else {
            return -Errno.EINVAL; // FI_MR_LOCAL: every local buffer needs its MemoryRegion as desc
        }
        return buf.byteSize();
    }

    /**
     * Probes a connected peer with a zero-length RDMA write ({@link VerbsParams#KEEPALIVE_INTERVAL}) when called from
     * its send CQ's progress {@code sendCq}, {@code interval} after its last probe, if a send slot is free. A
     * zero-length write needs no key and touches no memory (IBA C9-88); a peer that stopped answering fails it after
     * the transport's retries, which ends the connection ({@link VerbsCm#transportFailed}). The probe never reaches
     * the CQ.
     */
    void keepalive(VerbsProgress sendCq, long now, long interval) {
        if (now - nextProbe < 0 || qp == null || !txCq.drivenBy(sendCq) || tx.full() || cm.txReady() != 0) {
            return;
        }
        nextProbe = now + interval;
        filledSges = 0;
        filledLength = 0;
        postSend(verbs_h.IBV_WR_RDMA_WRITE, 0, 0, 0, PROBE, 0, 0);
    }

    /** Posts the filled send SGEs as one work request of {@code opcode}; 0 or a negative errno. */
    private int postSend(int opcode, long data, long raddr, long rkey, Object ctx, long opFlags, long compFlags) {
        if (tx.full()) {
            return -Errno.EAGAIN;
        }
        long totalLen = filledLength;
        boolean inject = (opFlags & OpFlags.INJECT) != 0;
        if (inject && totalLen > maxInline) {
            return -Errno.EMSGSIZE;
        }
        if ((rkey & ~0xffffffffL) != 0) {
            return -Errno.EINVAL;
        }
        if (!txCq.reserve()) {
            return -Errno.EAGAIN;
        }
        boolean probe = ctx == PROBE;
        boolean report = !probe && bindings.txWantsCompletion(opFlags);
        // unsignaled work requests are only retired by a later signaled one: signal now and then; a probe
        // is signaled so that one on an idle connection gives its slot back
        boolean signal = report || probe || unsignaled + 1 >= txSize / 2;
        int slot = tx.next();
        ibv_send_wr.wr_id(sendWr, slot);
        ibv_send_wr.next(sendWr, MemorySegment.NULL);
        ibv_send_wr.sg_list(sendWr, sendSges);
        ibv_send_wr.num_sge(sendWr, filledSges);
        ibv_send_wr.opcode(sendWr, opcode);
        boolean atomic = opcode == verbs_h.IBV_WR_ATOMIC_FETCH_AND_ADD || opcode == verbs_h.IBV_WR_ATOMIC_CMP_AND_SWP;
        // small sends and writes go inline (the CPU copies them into the WQE), as libfabric's verbs does
        boolean inline = opcode != verbs_h.IBV_WR_RDMA_READ && !atomic && totalLen <= maxInline;
        int sendFlags = (signal ? verbs_h.IBV_SEND_SIGNALED : 0)
                | (inline ? verbs_h.IBV_SEND_INLINE : 0)
                | ((opFlags & OpFlags.FENCE) != 0 ? verbs_h.IBV_SEND_FENCE : 0);
        ibv_send_wr.send_flags(sendWr, sendFlags);
        ibv_send_wr.imm_data(sendWr, Integer.reverseBytes((int) data)); // imm_data is big endian on the wire
        if (atomic) {
            VerbsAtomic.target(sendWr, raddr, atomicCompareAdd, atomicSwap, (int) rkey);
        } else {
            ibv_send_wr.wr_rdma_remote_addr(sendWr, raddr);
            ibv_send_wr.wr_rdma_rkey(sendWr, (int) rkey);
        }
        int rc = verbs_h.ibv_post_send(postSendFn, qp.address(), sendWr.address(), badWr.address());
        if (rc != 0) {
            txCq.cancelReservation();
            return rc == Errno.ENOMEM ? -Errno.EAGAIN : -rc;
        }
        unsignaled = signal ? 0 : unsignaled + 1;
        tx.commit(slot, ctx, compFlags, totalLen, report);
        return 0;
    }

    /** Posts the filled receive SGEs as one receive work request; 0 or a negative errno. */
    private int postRecv(Object context) {
        if (rx.full() || !rxCq.reserve()) {
            return -Errno.EAGAIN;
        }
        int slot = rx.next();
        ibv_recv_wr.wr_id(recvWr, RX_BIT | slot);
        ibv_recv_wr.next(recvWr, MemorySegment.NULL);
        ibv_recv_wr.sg_list(recvWr, recvSges);
        ibv_recv_wr.num_sge(recvWr, filledSges);
        int rc = verbs_h.ibv_post_recv(postRecvFn, qp.address(), recvWr.address(), badWr.address());
        if (rc != 0) {
            rxCq.cancelReservation();
            return rc == Errno.ENOMEM ? -Errno.EAGAIN : -rc;
        }
        rx.commit(slot, context, OpFlags.RECV | OpFlags.MSG, filledLength, true);
        return 0;
    }

    // ---- completions --------------------------------------------------------------------------

    /**
     * Reports one work completion of this QP through the bindings, into the slot its work request reserved.
     * Unsignaled sends it retires, and completions nobody asked for, give their slots back.
     */
    void completed(MemorySegment wc) {
        long wrId = ibv_wc.wr_id(wc);
        if ((wrId & VerbsSharedRx.SRQ_BIT) != 0) {
            srx.completed(wc, wrId, bindings);
            return;
        }
        boolean isRecv = (wrId & RX_BIT) != 0;
        TxRing ring = isRecv ? rx : tx;
        VerbsCq owner = isRecv ? rxCq : txCq;
        int slot = (int) (wrId & ~RX_BIT);
        if (!ring.outstanding(slot)) {
            return; // already retired (synthesized on close)
        }
        // earlier unsignaled sends finished successfully before this one (RC completes in order)
        while (ring.tail != slot) {
            ring.releaseTail();
            owner.cancelReservation();
        }
        int status = ibv_wc.status(wc);
        Object ctx = ring.context[slot];
        long flags = ring.flags[slot];
        long len = ring.length[slot];
        boolean report = ring.report[slot];
        ring.releaseTail();
        if (ctx == PROBE) {
            owner.cancelReservation();
            if (WcStatus.peerLost(status)) {
                cm.transportFailed(WcStatus.toErrno(status, false), status,
                        WcStatus.text(status).getBytes(StandardCharsets.UTF_8));
            }
            return;
        }
        if (status != verbs_h.IBV_WC_SUCCESS) {
            reportWcError(isRecv, ctx, flags, len, status);
            return;
        }
        if (!isRecv) {
            // fi_cq(3): len is for receives; a send, read or write reports 0
            bindings.reportTx(report, true, ctx, flags, 0);
            if (!report) {
                owner.cancelReservation();
            }
            return;
        }
        reportReceived(bindings, wc, true, ctx, flags);
    }

    /** A receive's successful work completion, in a promised slot when {@code reserved} (the SRQ's are not). */
    static void reportReceived(EndpointBindings bindings, MemorySegment wc, boolean reserved, Object ctx, long flags) {
        long data = 0;
        if ((ibv_wc.wc_flags(wc) & verbs_h.IBV_WC_WITH_IMM) != 0) {
            data = Integer.toUnsignedLong(Integer.reverseBytes(ibv_wc.imm_data(wc)));
            flags |= OpFlags.REMOTE_CQ_DATA;
        }
        if (ibv_wc.opcode(wc) == verbs_h.IBV_WC_RECV_RDMA_WITH_IMM) {
            // a writedata landed in the target's memory; it consumed this receive only for its data
            flags = OpFlags.RMA | OpFlags.REMOTE_WRITE | OpFlags.REMOTE_CQ_DATA;
        }
        bindings.reportRx(true, reserved, ctx, flags, Integer.toUnsignedLong(ibv_wc.byte_len(wc)), 0, data, 0,
                Fabrics.ADDR_NOTAVAIL);
    }

    /** A failed work completion: prov_errno is its ibv_wc_status, err_data the status text (made here, once). */
    private void reportWcError(boolean isRecv, Object ctx, long flags, long len, int status) {
        int errnum = WcStatus.toErrno(status, isRecv);
        byte[] text = WcStatus.text(status).getBytes(StandardCharsets.UTF_8);
        if (isRecv) {
            bindings.reportRxErrorDetail(true, ctx, flags, len, errnum, status, text);
        } else {
            bindings.reportTxErrorDetail(true, ctx, flags, len, errnum, status, text);
        }
        if (status != verbs_h.IBV_WC_WR_FLUSH_ERR) {
            LOG.log(System.Logger.Level.DEBUG, "work completion error on QP " + qpNum + ": " + WcStatus.text(status));
        }
        if (WcStatus.peerLost(status)) {
            cm.transportFailed(errnum, status, text);
        }
    }

    /**
     * Completes everything still posted with ECANCELED (after the QP is gone, nothing else will), each in the
     * slot its post reserved; prov_errno is the errno, with no err_data.
     */
    private void cancelOutstanding(TxRing ring, boolean isRecv) {
        while (ring.count > 0) {
            int slot = ring.tail;
            Object ctx = ring.context[slot];
            long flags = ring.flags[slot];
            long len = ring.length[slot];
            ring.releaseTail();
            if (ctx == PROBE) {
                txCq.cancelReservation();
            } else if (isRecv) {
                bindings.reportRxError(true, ctx, flags, len, 0, 0, 0, 0, Errno.ECANCELED, Errno.ECANCELED);
            } else {
                bindings.reportTxError(true, ctx, flags, len, 0, Errno.ECANCELED, Errno.ECANCELED);
            }
        }
    }

    /**
     * Lets the flush completions arrive, so that each posted operation gets its own error completion, then
     * completes what is left with ECANCELED and destroys the QP.
     */
    void drainAndDestroy(MemorySegment id, MemorySegment errno) {
        long deadline = System.nanoTime() + CLOSE_DRAIN_MS * 1_000_000L;
        while ((tx.count > 0 || rx.count > 0) && System.nanoTime() < deadline) {
            txCq.poll();
            rxCq.poll();
            if (tx.count > 0 || rx.count > 0) {
                LockSupport.parkNanos(1_000_000L);
            }
        }
        txCq.poll();
        rxCq.poll();
        txCq.unregister(this);
        rxCq.unregister(this);
        txCq.removeDepth(txSize);
        rxCq.removeDepth(rxDepth());
        cancelOutstanding(tx, false);
        cancelOutstanding(rx, true);
        rdma_cma_h.rdma_destroy_qp(errno, id);
        qp = null;
    }

    // ---- QP attributes ------------------------------------------------------------------------

    /**
     * Sets the responder's min_rnr_timer, which rdma_cm leaves at 0 (655.36 ms per RNR NAK). It is a legal RTS to
     * RTS change, so it is applied once the QP is in RTS: after rdma_accept on the passive side and on
     * ESTABLISHED on both. A failure costs speed, not correctness, so it is logged and the connection stays.
     */
    void setRnrTimer() {
        MemorySegment q = qp;
        if (q == null || rnrTimerSet) {
            return; // the passive side sets it after rdma_accept; ESTABLISHED only retries a failure
        }
        int timer = VerbsParams.MIN_RNR_TIMER.get();
        if (timer < 0 || timer > 31) {
            LOG.log(System.Logger.Level.WARNING, "FI_VERBS_MIN_RNR_TIMER " + timer + " is out of range 0 - 31; using "
                    + VerbsParams.DEFAULT_MIN_RNR_TIMER);
            timer = VerbsParams.DEFAULT_MIN_RNR_TIMER;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(a);
            int before = -1;
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                before = queryQp(q, attr, a);
            }
            attr.fill((byte) 0);
            ibv_qp_attr.min_rnr_timer(attr, (byte) timer);
            int rc = verbs_h.ibv_modify_qp(q, attr, verbs_h.IBV_QP_MIN_RNR_TIMER);
            if (rc != 0) {
                LOG.log(System.Logger.Level.WARNING, "ibv_modify_qp(min_rnr_timer " + timer + ") on QP " + qpNum
                        + " failed: " + Native.strerror(rc) + "; each RNR NAK will stall the sender");
                return;
            }
            rnrTimerSet = true;
            if (before >= 0) {
                queryQp(q, attr, a);
                LOG.log(System.Logger.Level.DEBUG, "QP " + qpNum + ": min_rnr_timer " + before + " -> "
                        + ibv_qp_attr.min_rnr_timer(attr) + ", timeout " + ibv_qp_attr.timeout(attr) + ", retry_cnt "
                        + ibv_qp_attr.retry_cnt(attr) + ", rnr_retry " + ibv_qp_attr.rnr_retry(attr) + ", state "
                        + ibv_qp_attr.qp_state(attr));
            }
        }
    }

    /** Queries the attributes that govern retries into {@code attr}; returns min_rnr_timer, or -1. */
    private static int queryQp(MemorySegment q, MemorySegment attr, Arena a) {
        attr.fill((byte) 0);
        MemorySegment init = ibv_qp_init_attr.allocate(a);
        int rc = verbs_h.ibv_query_qp(q, attr, verbs_h.IBV_QP_STATE | verbs_h.IBV_QP_MIN_RNR_TIMER
                | verbs_h.IBV_QP_TIMEOUT | verbs_h.IBV_QP_RETRY_CNT | verbs_h.IBV_QP_RNR_RETRY, init);
        return rc == 0 ? Byte.toUnsignedInt(ibv_qp_attr.min_rnr_timer(attr)) : -1;
    }

    @Override
    public String toString() {
        return "qp=" + qpNum + ", tx=" + tx.count + "/" + txSize + ", rx=" + rx.count + "/" + rxSize;
    }
}
