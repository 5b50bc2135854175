package io.jfabric.provider.verbs;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.RxAttr;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.generated.ibv_context_ops;
import io.jfabric.provider.verbs.ffi.generated.ibv_recv_wr;
import io.jfabric.provider.verbs.ffi.generated.ibv_sge;
import io.jfabric.provider.verbs.ffi.generated.ibv_srq;
import io.jfabric.provider.verbs.ffi.generated.ibv_srq_init_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_wc;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.OpRequest;
import io.jfabric.util.UtilCompletionQueue;
import io.jfabric.util.UtilSharedRx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * verbs' {@code fi_srx_context}: one {@code ibv_srq} that the QPs of the endpoints bound to it take their receives
 * from, as libfabric's verbs does for FI_EP_MSG. A receive is posted once with {@code ibv_post_srq_recv}; the work
 * completion arrives on the receive CQ of the QP the message came in on, and that QP (found by the completion's
 * qp_num) reports it through its endpoint's bindings, so it lands on that endpoint's CQ as fi_endpoint(3) says.
 *
 * <p>Which CQ a receive will complete on is unknown when it is posted, so no CQ slot is promised then; each bound
 * endpoint's receive CQ counts the SRQ's depth instead. SRQ completions come in any order across QPs, so the posted
 * receives sit in slots taken from a free list, not a ring. verbs cannot take back a posted work request: cancel is
 * ENOSYS, as on the endpoint; closing the context completes what it still holds with ECANCELED on the last bound
 * endpoint's receive CQ. Posts take the domain's data lock (a no-op below FI_THREAD_SAFE); completions come through
 * VerbsProgress, which takes it too.
 */
final class VerbsSharedRx extends UtilSharedRx {
    /** Marks a work request posted to an SRQ in wr_id (the low bits hold the slot); VerbsQp's rx bit is 1 << 62. */
    static final long SRQ_BIT = 1L << 61;

    private final VerbsDomain domain;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment srq;
    private final MemorySegment postSrqRecvFn;
    final int size;
    private final int iovLimit;
    private final long defaultFlags;
    private final MemorySegment recvWr;
    private final MemorySegment recvSges;
    private final MemorySegment badWr;

    private final Object[] context;
    private final long[] length;
    private final boolean[] posted;
    private final int[] free;
    private int freeCount;
    /** Where receives still posted when the context closes complete: the last bound endpoint's receive CQ. */
    private UtilCompletionQueue lastRxCq;
    private boolean destroyed;

    VerbsSharedRx(VerbsDomain domain, RxAttr attr) {
        super("verbs shared receive context");
        VerbsDevice dev = domain.device();
        if (dev.maxSrq() <= 0) {
            throw new FabricException(Errno.ENOSYS, dev.name() + " has no SRQs (max_srq 0): no fi_srx_context");
        }
        long askedSize = attr == null || attr.size == 0 ? VerbsParams.RX_SIZE.get() : attr.size;
        long askedIov = attr == null || attr.iovLimit == 0 ? VerbsInfos.DEFAULT_IOV_LIMIT : attr.iovLimit;
        if (askedSize > dev.maxSrqWr() || askedIov > dev.maxSrqSge()) {
            throw new FabricException(Errno.EINVAL, "fi_srx_context of size " + askedSize + " and iov_limit "
                    + askedIov + " exceeds " + dev.name() + "'s max_srq_wr " + dev.maxSrqWr() + " or max_srq_sge "
                    + dev.maxSrqSge());
        }
        this.domain = domain;
        this.size = (int) askedSize;
        this.iovLimit = (int) Math.max(1, askedIov);
        this.defaultFlags = attr == null ? 0 : attr.opFlags;
        MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
        MemorySegment init = ibv_srq_init_attr.allocate(arena);
        ibv_srq_init_attr.attr_max_wr(init, size);
        ibv_srq_init_attr.attr_max_sge(init, iovLimit);
        try {
            srq = ibv_srq.reinterpret(Native.checkPtr(verbs_h.ibv_create_srq(errno, domain.pd(), init), errno,
                    "ibv_create_srq (max_wr " + size + ", max_sge " + iovLimit + ")"));
        } catch (FabricException e) {
            arena.close();
            throw e;
        }
        postSrqRecvFn = ibv_context_ops.post_srq_recv(ibv_context.ops(ibv_context.reinterpret(ibv_srq.context(srq))));
        recvWr = ibv_recv_wr.allocate(arena);
        recvSges = ibv_sge.allocateArray(iovLimit, arena);
        badWr = arena.allocate(ValueLayout.ADDRESS);
        context = new Object[size];
        length = new long[size];
        posted = new boolean[size];
        free = new int[size];
        for (int i = 0; i < size; i++) {
            free[i] = size - 1 - i;
        }
        freeCount = size;
        domain.acquire();
    }

    MemorySegment ibvSrq() {
        return srq;
    }

    VerbsDomain domain() {
        return domain;
    }

    /** An endpoint bound to the context is enabled: its receive CQ is where a close's cancellations go. */
    void enabled(UtilCompletionQueue rxCq) {
        lastRxCq = rxCq;
    }

    @Override
    protected long rxFlags() {
        return defaultFlags;
    }

    /**
     * {@code ibv_post_srq_recv} of {@code op}'s buffers; 0 or a negative errno. Also the bound endpoints' fi_recv.
     * Under the domain's data lock, which is a no-op below FI_THREAD_SAFE (the slots and the work request are shared).
     */
    @Override
    protected int postRecv(OpRequest op) {
        VerbsDataLock lock = domain.dataLock();
        lock.lock();
        try {
            return post(op);
        } finally {
            lock.unlock();
        }
    }

    private int post(OpRequest op) {
        if ((op.flags & OpFlags.TAGGED) != 0) {
            return -Errno.ENOSYS; // no FI_TAGGED on verbs
        }
        if (destroyed) {
            return -Errno.EOPBADSTATE;
        }
        int count = op.count;
        if (count > iovLimit) {
            return -Errno.EINVAL;
        }
        if (freeCount == 0) {
            return -Errno.EAGAIN;
        }
        MemoryRegion[] desc = op.desc;
        long total = 0;
        for (int i = 0; i < count; i++) {
            long n = VerbsQp.fillSge(recvSges, i, op.iov[i], desc == null ? null : desc[i], false);
            if (n < 0) {
                return (int) n;
            }
            total += n;
        }
        int slot = free[freeCount - 1];
        ibv_recv_wr.wr_id(recvWr, SRQ_BIT | slot);
        ibv_recv_wr.next(recvWr, MemorySegment.NULL);
        ibv_recv_wr.sg_list(recvWr, recvSges);
        ibv_recv_wr.num_sge(recvWr, total == 0 ? 0 : count); // a zero-length work request carries no SGE
        int rc = verbs_h.ibv_post_srq_recv(postSrqRecvFn, srq.address(), recvWr.address(), badWr.address());
        if (rc != 0) {
            return rc == Errno.ENOMEM ? -Errno.EAGAIN : -rc;
        }
        freeCount--;
        context[slot] = op.context;
        length[slot] = total;
        posted[slot] = true;
        return 0;
    }

    /** A work completion of one of this SRQ's receives, on a QP whose endpoint reports through {@code bindings}. */
    void completed(MemorySegment wc, long wrId, EndpointBindings bindings) {
        int slot = (int) (wrId & ~SRQ_BIT);
        if (slot < 0 || slot >= size || !posted[slot]) {
            return; // already completed as cancelled by the close
        }
        Object ctx = context[slot];
        long len = length[slot];
        release(slot);
        int status = ibv_wc.status(wc);
        if (status == verbs_h.IBV_WC_SUCCESS) {
            VerbsQp.reportReceived(bindings, wc, false, ctx, OpFlags.RECV | OpFlags.MSG);
        } else {
            bindings.reportRxErrorDetail(false, ctx, OpFlags.RECV | OpFlags.MSG, len,
                    WcStatus.toErrno(status, true), status, WcStatus.text(status).getBytes(StandardCharsets.UTF_8));
        }
    }

    private void release(int slot) {
        posted[slot] = false;
        context[slot] = null;
        free[freeCount++] = slot;
    }

    @Override
    public int cancel(Object ctx) {
        return -Errno.ENOSYS; // a posted verbs work request cannot be taken back
    }

    /** No QP uses the SRQ any more (UtilSharedRx refuses the close before): destroy it, cancel what it held. */
    @Override
    protected void closeShared() {
        destroyed = true;
        int rc = verbs_h.ibv_destroy_srq(srq);
        UtilCompletionQueue cq = lastRxCq;
        for (int slot = 0; slot < size; slot++) {
            if (posted[slot]) {
                Object ctx = context[slot];
                long len = length[slot];
                release(slot);
                if (cq != null && !cq.isClosed()) {
                    cq.writeError(false, ctx, OpFlags.RECV | OpFlags.MSG, len, 0, 0, 0, 0, Errno.ECANCELED,
                            Errno.ECANCELED, null);
                }
            }
        }
        arena.close();
        domain.release();
        if (rc != 0) {
            throw new FabricException(rc, "ibv_destroy_srq failed: " + Native.strerror(rc));
        }
    }
}
