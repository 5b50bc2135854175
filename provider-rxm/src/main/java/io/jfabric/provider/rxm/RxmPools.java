package io.jfabric.provider.rxm;

import io.jfabric.Access;
import io.jfabric.MemoryRegion;
import io.jfabric.util.FabricLog;

import java.lang.foreign.MemorySegment;
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
    private TxBuf txBufFree;
    private RxBuf rxFree;
    private RxBuf rxFreeTagged;
    private RecvEntry recvFree;
    private Unexpected unexpFree;
    /** The bounce buffers' core registrations, closed with the endpoint (after its core endpoints). */
    private final List<MemoryRegion> bounceMrs = new ArrayList<>();
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
        rxSlabs = new BounceSlabs(RxBuf.size(s.eagerLimit), this::registerBounce);
        txSlabs = new BounceSlabs(TxBuf.size(Math.max(s.bufferSize, s.eagerLimit)), this::registerBounce);
    }

    /** The tx size the application asked for (or the tx_size parameter), bounded to [16, 65536]. */
    private static int txSize(RxmShared s) {
        long asked = s.info.txAttr == null || s.info.txAttr.size == 0 ? s.params.txSize() : s.info.txAttr.size;
        return (int) Math.max(16, Math.min(asked, 1 << 16));
    }

    // ---- transmit ops

    TxOp acquireTxOp() {
        if (txFreeTop == 0) {
            return null;
        }
        TxOp op = txOps[txFree[--txFreeTop]];
        op.state = TxOp.ACTIVE;
        op.pending = 0;
        op.error = 0;
        op.mrCount = 0;
        op.remoteCount = 0;
        op.segCount = 0;
        op.nextSeg = 0;
        return op;
    }

    void releaseTxOp(TxOp op) {
        op.state = TxOp.FREE;
        op.context = null;
        op.conn = null;
        op.cd = null;
        for (int i = 0; i < op.iovCount; i++) {
            op.iov[i] = null;
            op.desc[i] = null;
        }
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
        TxBuf tb = txBufFree;
        if (tb != null) {
            txBufFree = tb.nextFree;
            tb.nextFree = null;
        } else {
            tb = new TxBuf(txSlabs.next(), txSlabs.registration());
        }
        tb.orphan = false;
        tb.op = null;
        tb.recv = null;
        tb.directCount = 0;
        tb.pending = null;
        return tb;
    }

    void releaseTxBuf(TxBuf tb) {
        tb.op = null;
        tb.recv = null;
        tb.conn = null;
        tb.cd = null;
        tb.pending = null;
        for (int i = 0; i < tb.directIov.length; i++) {
            tb.directIov[i] = null;
        }
        tb.nextFree = txBufFree;
        txBufFree = tb;
    }

    // ---- receive buffers

    RxBuf acquireRxBuf(boolean tagged) {
        RxBuf rx = tagged ? rxFreeTagged : rxFree;
        if (rx == null) {
            return new RxBuf(rxSlabs.next(), rxSlabs.registration(), tagged);
        }
        if (tagged) {
            rxFreeTagged = rx.next;
        } else {
            rxFree = rx.next;
        }
        rx.next = null;
        return rx;
    }

    void releaseRxBuf(RxBuf rx) {
        rx.conn = null;
        rx.cd = null;
        rx.coreEp = null;
        if (rx.tagged) {
            rx.next = rxFreeTagged;
            rxFreeTagged = rx;
        } else {
            rx.next = rxFree;
            rxFree = rx;
        }
    }

    // ---- receive entries and unexpected messages

    RecvEntry acquireRecv() {
        RecvEntry e = recvFree;
        if (e != null) {
            recvFree = e.next;
            e.next = null;
        } else {
            e = new RecvEntry();
        }
        e.clearMessage();
        e.orphan = false;
        e.multi = false;
        return e;
    }

    void releaseRecv(RecvEntry e) {
        if (e.orphan) {
            return;
        }
        for (int i = 0; i < e.count; i++) {
            e.iov[i] = null;
            e.desc[i] = null;
        }
        e.context = null;
        e.conn = null;
        e.cd = null;
        e.rndvReq = null;
        e.parent = null;
        e.prev = null;
        e.nextActive = null;
        e.next = recvFree;
        recvFree = e;
    }

    Unexpected acquireUnexpected() {
        Unexpected u = unexpFree;
        if (u != null) {
            unexpFree = u.next;
            u.next = null;
        } else {
            u = new Unexpected();
        }
        return u;
    }

    void releaseUnexpected(Unexpected u) {
        u.clear();
        u.next = unexpFree;
        unexpFree = u;
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
