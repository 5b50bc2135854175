package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Endpoint;
import io.jfabric.MemoryRegion;
import io.jfabric.util.UtilCompletionQueue;
import io.jfabric.util.jfr.ProtocolTransferEvent;

import java.lang.foreign.MemorySegment;

/**
 * One application transmit (send, tagged send, RMA) in flight: libfabric's rxm_tx_buf as the op state.
 * Its pool index is the msg_id the peer echoes in rndv_rd_done / rndv_wr_data. It is the core
 * context of sends that carry no rxm buffer (headerless tagged sends, RMA).
 */
final class TxOp implements CoreCompletion, DeferredWork {
    static final int FREE = 0;
    static final int ACTIVE = 1;
    static final int WAIT_RD_DONE = 2;
    static final int WAIT_WR_DATA = 3;
    static final int WRITING = 4;
    /** Failed with its connection; late core completions for it are ignored and it is never reused. */
    static final int ORPHAN = 5;
    /** An atomic request sent; the op completes with the target's rxm_ctrl_atomic_resp (RxmAtomic). */
    static final int WAIT_ATOMIC_RESP = 6;

    final int index;
    int state;
    Object context;
    long cqFlags;
    boolean report;
    /** The transmit CQ that promised this op's completion a slot at post time; null when none was promised. */
    UtilCompletionQueue slotCq;
    int op;
    int proto;
    long tag;
    long data;
    int pktFlags;
    final MemorySegment[] iov = new MemorySegment[4];
    final MemoryRegion[] desc = new MemoryRegion[4];
    int iovCount;
    long length;
    int pending;
    int error;
    RxmConnection<Endpoint> conn;
    ConnData cd;
    int generation;
    long segCount;
    long nextSeg;
    final MemoryRegion[] mrs = new MemoryRegion[4];
    int mrCount;
    /** Write rendezvous: the receiver's buffers. */
    final long[] remoteAddr = new long[4];
    final long[] remoteLen = new long[4];
    final long[] remoteKey = new long[4];
    int remoteCount;
    TxOp prev;
    TxOp next;
    /** The jfabric.ProtocolTransfer event of a SAR or rendezvous op, begun at post; null unless recorded. */
    ProtocolTransferEvent transfer;

    TxOp(int index) {
        this.index = index;
    }

    /** Taken from the pool for a new transmit. */
    void activate() {
        state = ACTIVE;
        pending = error = 0;
        mrCount = remoteCount = 0;
        segCount = nextSeg = 0;
    }

    /** Back to the pool: drops the references to the application's buffers and context. */
    void free() {
        state = FREE;
        context = null;
        conn = null;
        cd = null;
        transfer = null;
        for (int i = 0; i < iovCount; i++) {
            iov[i] = null;
            desc[i] = null;
        }
    }

    @Override
    public void complete(RxmShared s, CqEntry e) {
        s.transmit.opCoreDone(this, 0);
    }

    @Override
    public void fail(RxmShared s, CqErrEntry e) {
        s.transmit.opCoreDone(this, e.err == 0 ? io.jfabric.Errno.EIO : e.err);
    }
}
