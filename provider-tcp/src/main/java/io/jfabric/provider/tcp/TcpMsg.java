package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.OpRequest;
import io.jfabric.util.UtilCompletionQueue;

/**
 * The message entry points, libfabric tcp's {@code xnet_msg.c}: a send becomes one op_msg frame (with remote
 * CQ data, and the delivery-complete flag that asks for an ACK when the operation wants FI_TRANSMIT_COMPLETE
 * or FI_DELIVERY_COMPLETE, as libfabric does), a receive a posted entry. Tagged ones come through
 * {@link TcpTagged}. Called under the endpoint's lock.
 */
final class TcpMsg {
    private static final long ACK_FLAGS = OpFlags.TRANSMIT_COMPLETE | OpFlags.DELIVERY_COMPLETE | OpFlags.COMMIT_COMPLETE;

    private final TcpTxPath txPath;
    private final TcpProgress engine;
    private final TcpCm cm;
    private final EndpointBindings bindings;
    private final TcpDomain domain;

    TcpMsg(TcpTxPath txPath, TcpProgress engine, TcpCm cm, EndpointBindings bindings, TcpDomain domain) {
        this.txPath = txPath;
        this.engine = engine;
        this.cm = cm;
        this.bindings = bindings;
        this.domain = domain;
    }

    int send(OpRequest op, boolean tagged) {
        long flags = op.flags;
        boolean inject = (flags & OpFlags.INJECT) != 0;
        long total = txPath.check(op, inject);
        if (total < 0) {
            return (int) total;
        }
        TxEntry e = txPath.take();
        if (e == null) {
            return -Errno.EAGAIN;
        }
        int wflags = (flags & OpFlags.REMOTE_CQ_DATA) != 0 ? DataHeader.FLAG_REMOTE_CQ_DATA : 0;
        if (tagged) {
            wflags |= DataHeader.FLAG_TAGGED;
        }
        TcpConnection conn = engine.connection();
        if (!inject && conn.sameHost != null && conn.sameHost.carries(op, total)) {
            // the peer copies the message out of our memory, and its ACK completes the send
            e.needAck = true;
            int hl = DataHeader.encodeSameHostMsg(e.hdr, conn.order(), wflags, op.data, op.tag, op.iov, op.count);
            e.attachPayload(op.iov, 0, hl, 0);
        } else {
            if (!inject && (flags & ACK_FLAGS) != 0) {
                wflags |= DataHeader.FLAG_DELIVERY_COMPLETE;
                e.needAck = true;
            }
            int hl = DataHeader.encodeMsg(e.hdr, conn.order(), wflags, op.data, op.tag, total);
            e.attachPayload(op.iov, op.count, hl, total);
        }
        e.kind = TxEntry.KIND_SEND;
        e.context = op.context;
        e.cqFlags = tagged ? TcpCompletions.TSEND_FLAGS : TcpCompletions.SEND_FLAGS;
        e.len = total;
        e.completion = txPath.wantsCompletion(flags);
        return txPath.submit(e, flags);
    }

    int recv(OpRequest op, boolean tagged) {
        if (cm.isEnded()) {
            return -Errno.ENOTCONN;
        }
        long total = TcpTxPath.total(op);
        if (total < 0) {
            return (int) total;
        }
        TcpRecvQueue posted = engine.posted();
        RxEntry e = posted.take();
        if (e == null) {
            return -Errno.EAGAIN;
        }
        for (int i = 0; i < op.count; i++) {
            e.iov[i] = op.iov[i];
        }
        e.iovCount = op.count;
        e.capacity = total;
        e.context = op.context;
        e.tagged = tagged;
        e.tag = op.tag;
        e.ignore = op.ignore;
        e.completion = bindings.rxWantsCompletion(op.flags);
        UtilCompletionQueue cq = bindings.rxCq();
        if (e.completion && cq != null) {
            if (!cq.tryReserve()) {
                posted.release(e);
                return -Errno.EAGAIN;
            }
            e.reserved = true;
        }
        engine.postRecv(e);
        if (!domain.manualProgress()) {
            domain.tcpFabric().wakeup();
        }
        return 0;
    }
}
