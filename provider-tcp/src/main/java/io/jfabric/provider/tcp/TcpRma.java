package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.RmaIov;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.util.OpRequest;

/**
 * The RMA entry points, libfabric tcp's {@code xnet_rma.c}: a write becomes one op_write frame carrying the
 * remote ranges and the payload, a read one op_read_req whose response lands in the local buffers. Difference:
 * every write except inject asks for the ACK and completes when the target has placed the data, so a write
 * the target refuses (bad key, range or access) fails at the initiator instead of completing once written
 * (libfabric: only with FI_DELIVERY_COMPLETE). The target side is {@link TcpRmaTarget}. Called under the
 * endpoint's lock.
 */
final class TcpRma {
    private final TcpTxPath txPath;
    private final TcpProgress engine;

    TcpRma(TcpTxPath txPath, TcpProgress engine) {
        this.txPath = txPath;
        this.engine = engine;
    }

    int write(OpRequest op) {
        return post(DataHeader.OP_WRITE, op);
    }

    int read(OpRequest op) {
        return post(DataHeader.OP_READ_REQ, op);
    }

    /** Posts an RMA write or read to {@code op.rmaCount} remote ranges whose lengths add up to the local total. */
    private int post(int op, OpRequest r) {
        long flags = r.flags;
        boolean write = op == DataHeader.OP_WRITE;
        boolean inject = write && (flags & OpFlags.INJECT) != 0;
        long total = txPath.check(r, inject);
        if (total < 0) {
            return (int) total;
        }
        RmaIov[] rma = r.rmaIov;
        int cnt = r.rmaCount;
        if (cnt < 1 || cnt > DataHeader.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        long rt = 0;
        for (int i = 0; i < cnt; i++) {
            if (rma[i] == null || rma[i].len < 0) {
                return -Errno.EINVAL;
            }
            rt += rma[i].len;
        }
        if (rt != total) {
            return -Errno.EINVAL;
        }
        TxEntry e = txPath.take();
        if (e == null) {
            return -Errno.EAGAIN;
        }
        TcpConnection conn = engine.connection();
        WireOrder order = conn.order();
        int wflags = write && (flags & OpFlags.REMOTE_CQ_DATA) != 0 ? DataHeader.FLAG_REMOTE_CQ_DATA : 0;
        if (write && !inject) {
            wflags |= DataHeader.FLAG_DELIVERY_COMPLETE;
            e.needAck = true;
        }
        // the target copies a large write out of our memory and ACKs it once placed (TcpSameHost)
        boolean sameHost = write && !inject && r.count + cnt <= DataHeader.SAME_HOST_WRITE_RANGES
                && conn.sameHost != null && conn.sameHost.carries(r, total);
        int hl = sameHost ? DataHeader.encodeSameHostWrite(e.hdr, order, wflags, r.data, cnt, r.count)
                : DataHeader.encodeRma(e.hdr, order, op, wflags, r.data, cnt, write ? total : 0);
        for (int i = 0; i < cnt; i++) {
            DataHeader.putRmaIov(e.hdr, order, i, rma[i].addr, rma[i].len, rma[i].key);
        }
        if (sameHost) {
            for (int i = 0; i < r.count; i++) {
                DataHeader.putSameHostIov(e.hdr, order, i, r.iov[i].address(), r.iov[i].byteSize());
            }
        }
        e.context = r.context;
        e.len = total;
        e.rmaAddr = rma[0].addr;
        e.rmaKey = rma[0].key;
        e.completion = txPath.wantsCompletion(flags);
        if (write) {
            e.kind = TxEntry.KIND_WRITE;
            e.cqFlags = TcpCompletions.WRITE_FLAGS;
            e.attachPayload(r.iov, sameHost ? 0 : r.count, hl, sameHost ? 0 : total);
        } else {
            e.kind = TxEntry.KIND_READ;
            e.cqFlags = TcpCompletions.READ_FLAGS;
            for (int i = 0; i < r.count; i++) {
                e.readIov[i] = r.iov[i];
            }
            e.readIovCount = r.count;
            e.hdrView.clear().limit(hl);
            e.bufs[0] = e.hdrView;
            e.bufCount = 1;
            e.remaining = hl;
        }
        return txPath.submit(e, flags);
    }
}
