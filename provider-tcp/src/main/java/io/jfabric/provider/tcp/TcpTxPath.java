package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.OpRequest;
import io.jfabric.util.UtilCompletionQueue;

import java.lang.foreign.MemorySegment;

/**
 * What every transmit entry point ({@link TcpMsg}, {@link TcpTagged}, {@link TcpRma}) shares: the checks
 * before an operation is accepted, a free entry, the CQ slot its completion will fill (FI_RM_ENABLED: a full
 * CQ makes the post return -EAGAIN instead of overrunning), and the hand-over to the connection.
 */
final class TcpTxPath {
    private final TcpCm cm;
    private final TcpProgress engine;
    private final EndpointBindings bindings;
    private final long maxMsgSize;

    TcpTxPath(TcpCm cm, TcpProgress engine, EndpointBindings bindings, long maxMsgSize) {
        this.cm = cm;
        this.engine = engine;
        this.bindings = bindings;
        this.maxMsgSize = maxMsgSize;
    }

    /** The payload's length, or a negative errno: not connected (yet), a bad iov, too long. */
    long check(OpRequest op, boolean inject) {
        int st = cm.txState();
        if (st != 0) {
            return st;
        }
        long total = total(op);
        if (total < 0) {
            return total;
        }
        if (total > maxMsgSize || (inject && total > TcpParams.INJECT_SIZE)) {
            return -Errno.EMSGSIZE;
        }
        return total;
    }

    /** Sums the iov lengths; negative errno when an iov is missing or the count is out of range. */
    static long total(OpRequest op) {
        int count = op.count;
        if (count > DataHeader.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            MemorySegment s = op.iov[i];
            if (s == null) {
                return -Errno.EINVAL;
            }
            total += s.byteSize();
        }
        return total;
    }

    /** Whether an operation posted with {@code flags} gets a success entry; never one from an fi_inject call. */
    boolean wantsCompletion(long flags) {
        return bindings.txWantsCompletion(flags);
    }

    /** A free entry, or null when tx_size operations are in flight (-EAGAIN). */
    TxEntry take() {
        return engine.tx().take();
    }

    /**
     * Promises the completion its CQ slot and queues the filled entry; -EAGAIN when the CQ is full. An
     * operation posted with FI_MORE is queued without a write (see {@link TcpProgress#submit}).
     */
    int submit(TxEntry e, long flags) {
        UtilCompletionQueue cq = bindings.txCq();
        if (e.completion && cq != null) {
            if (!cq.tryReserve()) {
                engine.tx().release(e);
                return -Errno.EAGAIN;
            }
            e.reserved = true;
        }
        engine.submit(e, (flags & OpFlags.MORE) != 0);
        return 0;
    }
}
