package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.RmaFailure;

/**
 * Turns what a connection reports into the endpoint's completions and counts, through its
 * {@link EndpointBindings} (libfabric tcp's {@code xnet_report_success} / {@code xnet_cq_report_error}), and
 * hands the end of the connection to {@link TcpCm}. A transmit success entry has len 0, as fi_cq(3) and
 * libfabric's tcp give it: len is for receives and for remote writes with CQ data at the target. Every error
 * entry carries its errno as prov_errno, tcp having no finer code.
 */
final class TcpCompletions implements ConnectionListener {
    static final long SEND_FLAGS = OpFlags.SEND | OpFlags.MSG;
    static final long TSEND_FLAGS = OpFlags.SEND | OpFlags.TAGGED;
    static final long WRITE_FLAGS = OpFlags.RMA | OpFlags.WRITE;
    static final long READ_FLAGS = OpFlags.RMA | OpFlags.READ;
    private static final long RECV_FLAGS = OpFlags.RECV | OpFlags.MSG;
    private static final long TRECV_FLAGS = OpFlags.RECV | OpFlags.TAGGED;
    private static final long REMOTE_WRITE_FLAGS = OpFlags.RMA | OpFlags.REMOTE_WRITE;
    private static final long REMOTE_READ_FLAGS = OpFlags.RMA | OpFlags.REMOTE_READ;

    private final EndpointBindings bindings;
    private TcpCm cm;

    TcpCompletions(EndpointBindings bindings) {
        this.bindings = bindings;
    }

    /**
     * The CM that learns when the connection ends; set once, right after construction, because the CM needs
     * the connection whose reports come here (before any socket exists, so nothing can end earlier).
     */
    void reportEndTo(TcpCm cm) {
        this.cm = cm;
    }

    @Override
    public void txDone(TxEntry e) {
        bindings.reportTx(e.completion, e.reserved, e.context, e.cqFlags, 0);
        e.reserved = false;
    }

    @Override
    public void txFailed(TxEntry e, int errno) {
        // libfabric's tcp wire has no RMA status: a target refusing one drops the connection, so the
        // initiator says what it sent where, the one lead it has
        boolean rma = e.kind == TxEntry.KIND_WRITE || e.kind == TxEntry.KIND_READ;
        bindings.reportTxError(e.reserved, e.context, e.cqFlags, e.len, errno, errno, rma && errno == Errno.ECONNRESET
                ? RmaFailure.dropped(e.kind == TxEntry.KIND_READ, e.len, e.rmaAddr, e.rmaKey) : null);
        e.reserved = false;
    }

    @Override
    public void rxDone(RxEntry e, long len, long truncated, boolean hasData, long data) {
        long flags = e.tagged ? TRECV_FLAGS : RECV_FLAGS;
        if (truncated > 0) {
            bindings.reportRxError(e.reserved, e.context, flags, len, 0, 0, e.rxTag, truncated, Errno.ETRUNC, Errno.ETRUNC);
        } else {
            if (hasData) {
                flags |= OpFlags.REMOTE_CQ_DATA;
            }
            bindings.reportRx(e.completion, e.reserved, e.context, flags, len,
                    e.iovCount > 0 && e.iov[0].isNative() ? e.iov[0].address() : 0, data, e.rxTag,
                    Fabrics.ADDR_NOTAVAIL);
        }
        e.reserved = false;
    }

    @Override
    public void rxFailed(RxEntry e, int errno) {
        bindings.reportRxError(e.reserved, e.context, e.tagged ? TRECV_FLAGS : RECV_FLAGS, 0, 0, 0, e.tag, 0, errno, errno);
        e.reserved = false;
    }

    @Override
    public boolean reserveRemoteData() {
        return bindings.reserveRemoteData();
    }

    @Override
    public void cancelRemoteData() {
        bindings.cancelRemoteData();
    }

    @Override
    public void remoteWrite(long len, boolean hasData, long data) {
        if (hasData) {
            bindings.reportRemoteReserved(REMOTE_WRITE_FLAGS, len, data);
        } else {
            bindings.reportRemote(REMOTE_WRITE_FLAGS, len, 0, false);
        }
    }

    @Override
    public void remoteRead(long len) {
        bindings.reportRemote(REMOTE_READ_FLAGS, len, 0, false);
    }

    @Override
    public void connectionEnded(int errno, String reason) {
        cm.connectionEnded(errno, reason);
    }
}
