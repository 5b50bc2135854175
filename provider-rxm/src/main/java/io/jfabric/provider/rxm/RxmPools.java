package io.jfabric.provider.rxm;

import io.jfabric.Access;
import io.jfabric.MemoryRegion;
import io.jfabric.util.FabricLog;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The endpoint's pools (libfabric's rxm buffer pools): transmit ops indexed by msg_id, transmit and receive
 * bounce buffers cut from registered slabs, posted-receive entries and unexpected-message entries. Every
 * pool grows until warm and then allocates nothing. An op orphaned by a failed connection gets a fresh
 * object in its slot, so a late core completion for the old one touches nothing live.
 */
final class RxmPools {
    private static final System.Logger LOG = FabricLog.logger("ofi_rxm");

    private final RxmShared s;
    private final TxOp[] txOps;
    private final int[] txFree;
    private int txFreeTop;
    /** Free stacks: they grow while the endpoint warms up, then push and pop without allocating. */
    private final ArrayDeque<TxBuf> txBufFree = new ArrayDeque<>();
    private final ArrayDeque<RxBuf> rxFree = new ArrayDeque<>();
    private final ArrayDeque<RxBuf> rxFreeTagged = new ArrayDeque<>();
    private final ArrayDeque<RecvEntry> recvFree = new ArrayDeque<>();
    private final ArrayDeque<Unexpected> unexpFree = new ArrayDeque<>();
    /** The bounce buffers' core registrations, closed with the endpoint (after its core endpoints). */
    private final List<MemoryRegion> bounceMrs = new ArrayList<>();
    /** The slabs' memory: freed at endpoint close ({@link #freeSlabs}). */
    private final Arena slabArena = Arena.ofShared();
    /** Receive and transmit buffers come from registered slabs (one core registration per slab). */
    private final BounceSlabs rxSlabs;
    private final BounceSlabs txSlabs;

    RxmPools(RxmShared s) {
        this.s = s;
        int txSize = txSize(s);
        txOps = new TxOp[txSize];
        txFree = new int[txSize];
        for (int i = 0; i < txSize; i++) {
            txOps[i] = new TxOp(i);
            txFree[txSize - 1 - i] = i;
        }
        txFreeTop = txSize;
        rxSlabs = new BounceSlabs(RxBuf.size(s.eagerLimit), slabArena, this::registerBounce);
        txSlabs = new BounceSlabs(TxBuf.size(Math.max(s.bufferSize, s.eagerLimit)), slabArena, this::registerBounce);
    }

    /** The tx size the application asked for (or the tx_size parameter), bounded to [16, 65536]. */
    private static int txSize(RxmShared s) {
        long asked = s.info.txAttr == null || s.info.txAttr.size == 0 ? s.params.txSize() : s.info.txAttr.size;
        return (int) Math.max(16, Math.min(asked, 1 << 16));
    }

    // ---- transmit ops

    /** Ops taken and not yet finished; a racy read is fine (statistics). */
    int txOpsInUse() {
        return txOps.length - txFreeTop;
    }

    TxOp acquireTxOp() {
        if (txFreeTop == 0) {
            return null;
        }
        TxOp op = txOps[txFree[--txFreeTop]];
        op.activate();
        return op;
    }

    /** Back to the pool; a CQ slot promised to an op that ends unreported (refused by the core) is returned. */
    void releaseTxOp(TxOp op) {
        if (op.slotCq != null) {
            op.slotCq.cancelReservation();
            op.slotCq = null;
        }
        op.free();
        txFree[txFreeTop++] = op.index;
    }

    /** Frees the slot of an orphaned op with a fresh object in it: the orphan may still see core completions. */
    void replaceOrphan(TxOp op) {
        txOps[op.index] = new TxOp(op.index);
        txFree[txFreeTop++] = op.index;
    }

    /** The op a peer names by msg_id, or null when the id is out of range. */
    TxOp txOp(long msgId) {
        return msgId < 0 || msgId >= txOps.length ? null : txOps[(int) msgId];
    }

    // ---- transmit buffers

    TxBuf acquireTxBuf() {
        TxBuf tb = txBufFree.pollFirst();
        if (tb == null) {
            tb = new TxBuf(txSlabs.next(), txSlabs.registration());
        }
        tb.orphan = false;
        tb.directCount = 0;
        return tb;
    }

    void releaseTxBuf(TxBuf tb) {
        tb.forget();
        txBufFree.addFirst(tb);
    }

    // ---- receive buffers

    RxBuf acquireRxBuf(boolean tagged) {
        RxBuf rx = (tagged ? rxFreeTagged : rxFree).pollFirst();
        return rx != null ? rx : new RxBuf(rxSlabs.next(), rxSlabs.registration(), tagged);
    }

    void releaseRxBuf(RxBuf rx) {
        rx.conn = null;
        rx.cd = null;
        rx.coreEp = null;
        rx.next = null;
        (rx.tagged ? rxFreeTagged : rxFree).addFirst(rx);
    }

    // ---- receive entries and unexpected messages

    RecvEntry acquireRecv() {
        RecvEntry e = recvFree.pollFirst();
        if (e == null) {
            e = new RecvEntry();
        }
        e.clearMessage();
        e.orphan = false;
        e.multi = false;
        e.home = this;
        return e;
    }

    void releaseRecv(RecvEntry e) {
        if (e.orphan) {
            return; // its connection failed while the core may still complete reads into it: never reused
        }
        e.forget();
        // home: a shared receive context's receive may complete on another endpoint than the one that posted it
        e.home.recvFree.addFirst(e);
    }

    Unexpected acquireUnexpected() {
        Unexpected u = unexpFree.pollFirst();
        return u != null ? u : new Unexpected();
    }

    void releaseUnexpected(Unexpected u) {
        u.clear();
        unexpFree.addFirst(u);
    }

    // ---- core registrations

    /** A core registration of a bounce buffer when the core needs FI_MR_LOCAL, else null (no desc). */
    private MemoryRegion registerBounce(MemorySegment mem) {
        if (!s.coreMrLocal) {
            return null;
        }
        MemoryRegion mr = s.domain.core.registerMemory(mem, Access.SEND | Access.RECV, 0, s.domain.nextRndvKey(), 0);
        bounceMrs.add(mr);
        return mr;
    }

    /** Closes the bounce buffers' registrations (endpoint close, after the core endpoints). */
    void closeRegistrations() {
        for (MemoryRegion mr : bounceMrs) {
            RxmShared.closeQuietly(mr);
        }
        bounceMrs.clear();
    }

    /**
     * Frees the bounce buffers' memory (endpoint close, after the core endpoints and the registrations, so no
     * device or core completion touches it any more). An endpoint bound to a shared receive context may have left
     * unexpected messages there that still point into its receive buffers: then the context frees them when it
     * closes.
     */
    void freeSlabs(RxmSharedRx shared) {
        if (shared != null) {
            shared.freeAtClose(slabArena);
        } else {
            RxmSharedRx.closeArena(slabArena);
        }
    }

    /** Closes the first {@code n} rendezvous registrations and clears their slots. */
    static void closeMrs(MemoryRegion[] mrs, int n) {
        for (int i = 0; i < n; i++) {
            if (mrs[i] != null) {
                try {
                    mrs[i].close();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "closing rendezvous MR: {0}", e.getMessage());
                }
                mrs[i] = null;
            }
        }
    }

    @Override
    public String toString() {
        return "tx free " + txFreeTop + "/" + txOps.length;
    }
}
