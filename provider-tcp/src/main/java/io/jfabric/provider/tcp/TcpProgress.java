package io.jfabric.provider.tcp;

import io.jfabric.provider.tcp.wire.DataHeader;

import io.jfabric.Errno;
import io.jfabric.provider.tcp.wire.WireStatus;
import io.jfabric.util.jfr.PeerFailureEvent;

import java.io.IOException;

/**
 * What moves one connection's data, libfabric tcp's {@code xnet_progress.c}: each pass writes what is queued,
 * runs the receive machine, and sends at once the ACKs and read responses the receive queued; the end of the
 * connection (failure, peer close, shutdown) fails every operation still queued or posted. The connection
 * speaks libfabric's tcp data protocol (version 3). The queues and agents that call it are
 * {@link ProgressList}, {@link QueueProgress} and {@link AutoProgress}.
 *
 * <p>Not thread-safe: every method runs under the owning endpoint's lock.
 */
final class TcpProgress {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger(TcpParams.PROV);

    private final TcpConnection conn;
    private final TcpTxQueue tx;
    private final TcpRecvQueue posted;
    private final TcpRecvMachine rx;
    private final ConnectionListener listener;
    /** Views of application buffers, shared by this connection's entries (see ViewCache). */
    private final ViewCache viewCache = new ViewCache();
    /** errno the queued operations still have to be failed with after {@link #fail}; 0 when none. */
    private int pendingFlushErr;
    /** For the jfabric.PeerFailure event of the failure being flushed: the peer and why; null when not recorded. */
    private String failedPeer;
    private String failReason;
    /** Where this connection announces held sends; null under auto progress (FI_MORE then holds unannounced). */
    private final SendHolds holds;
    /** Small sends of a burst wait for the next pass (the coalesce_sends parameter, FI_OPT_JF_COALESCE_SENDS). */
    private boolean coalesce;
    /** A frame was written by a post since the last progress pass: the next small post may wait for the pass. */
    private boolean wroteSincePass;
    /** Frames are held, announced in {@link #holds}. */
    private boolean holding;

    TcpProgress(ConnectionListener listener, TcpRmaTarget rmaTarget, int txSize, int rxSize, int prefetch,
                long maxPayload, boolean acceptsTagged, SendHolds holds) {
        this.listener = listener;
        this.holds = holds;
        this.coalesce = holds != null && TcpParams.COALESCE_SENDS.get();
        this.conn = new TcpConnection(prefetch);
        this.tx = new TcpTxQueue(conn, listener, viewCache, txSize);
        this.posted = new TcpRecvQueue(viewCache, rxSize);
        this.rx = new TcpRecvMachine(this, conn, tx, posted, rmaTarget, listener, viewCache, maxPayload,
                acceptsTagged);
    }

    TcpConnection connection() {
        return conn;
    }

    TcpTxQueue tx() {
        return tx;
    }

    TcpRecvQueue posted() {
        return posted;
    }

    /** Drives both directions; returns how much work was done (0 when idle). */
    int progress() {
        if (!conn.isOpen()) {
            return 0;
        }
        int work = progressTx();
        releaseHold(); // written, or queued behind a full socket, which the selector now watches
        if (conn.isOpen()) {
            try {
                work += rx.progress();
            } catch (IOException ex) {
                fail(Errno.ECONNRESET, "receive failed: " + ex.getMessage());
            }
        }
        if (conn.isOpen() && tx.hasQueued()) {
            // ACKs and read responses queued by this receive go out now, not at the next progress call
            work += progressTx();
        }
        if (conn.isOpen()) {
            updateInterest();
        }
        return work;
    }

    /**
     * Whether this call can skip the connection: it idles in its CQ's {@link QuietSet}, which saw nothing
     * for it, and has nothing to send nor anything received to finish.
     */
    private boolean skipIdlePass() {
        return tx.idle() && rx.waitsOnlyForSocket() && conn.skipIdlePass();
    }

    private int progressTx() {
        try {
            return tx.progress();
        } catch (IOException ex) {
            fail(Errno.ECONNRESET, "send failed: " + ex.getMessage());
            return 0;
        }
    }

    /** Tells the peer this side can copy from its memory (TcpSameHost): one READY frame ahead of any data. */
    void sayReadsPeer() {
        TxEntry e = tx.takeInternal();
        if (e == null) {
            return; // a fresh connection has its whole reserve; without it the peer just keeps to the socket
        }
        e.headerOnly(DataHeader.encodeSameHostReady(e.hdr, conn.order()));
        tx.enqueueInternal(e);
    }

    /**
     * Queues a filled entry and writes as much as the socket takes now. With FI_MORE ({@code more}) the entry
     * waits for the next post without it, or the next progress call, so a burst leaves in one write. Without it,
     * a small frame posted after another with no progress call between them waits too ({@link #coalesce}): the
     * first frame of a burst leaves at once, the rest together at the next progress call, which under manual
     * progress is the application's next CQ, counter or EQ read. Either waits only when {@link SendHolds} finds
     * no reader asleep that the frame would be stranded behind; otherwise it is written now.
     */
    void submit(TxEntry e, boolean more) {
        tx.enqueue(e);
        boolean wait = more || coalesce && wroteSincePass && e.remaining <= conn.batchCapacity();
        if (wait && (holds == null || hold())) {
            return;
        }
        progressTx();
        wroteSincePass = true;
    }

    boolean coalescesSends() {
        return coalesce;
    }

    /** FI_OPT_JF_COALESCE_SENDS; turning it off writes what waits. */
    void coalesceSends(boolean on) {
        coalesce = on && holds != null;
        if (!on && holding) {
            progressTx();
            releaseHold();
        }
    }

    private boolean hold() {
        if (!holding) {
            if (!holds.tryHold()) {
                return false;
            }
            holding = true;
        }
        return true;
    }

    private void releaseHold() {
        if (holding) {
            holding = false;
            holds.released();
        }
    }

    /** One progress pass of a queue read: what a held send waits for (see {@link #submit}). */
    int pass() {
        wroteSincePass = false;
        if (skipIdlePass()) {
            return 0;
        }
        return progress();
    }

    void postRecv(RxEntry e) {
        posted.post(e);
        if (rx.waitingForBuffer()) {
            updateInterest();
        }
    }

    /** fi_cancel of a posted receive that has not started to fill; true when found. */
    boolean cancelRecv(Object context) {
        RxEntry e = posted.cancel(context);
        if (e == null) {
            return false;
        }
        listener.rxFailed(e, Errno.ECANCELED);
        posted.release(e);
        return true;
    }

    void updateInterest() {
        conn.updateInterest(rx.starved());
    }

    // =================================================================== failure and close

    void protocolError(int status) {
        protocolError(WireStatus.errno(status), WireStatus.describe(status));
    }

    void protocolError(int errno, String reason) {
        LOG.log(System.Logger.Level.WARNING, "closing connection to {0}: {1}", conn.peerText(), reason);
        fail(errno == 0 ? Errno.EIO : errno, reason);
    }

    void peerClosed() {
        LOG.log(System.Logger.Level.DEBUG, "peer {0} closed the connection", conn.peerText());
        fail(0, "peer closed the connection");
    }

    /**
     * Ends the connection: closes the socket and completes every queued or posted operation with an error
     * ({@code errno}, or ECONNRESET for an orderly close by the peer; ECANCELED for a local shutdown).
     */
    void fail(int errno, String reason) {
        if (conn.isEnded()) {
            return;
        }
        if (PeerFailureEvent.isRecorded()) {
            failedPeer = conn.peerText(); // before the socket closes
            failReason = reason;
        }
        conn.end();
        releaseHold();
        // the EQ learns why first; the posted operations fail at the next progress call, so an application
        // polling CQ then EQ sees SHUTDOWN before (or with) the flushed completions, not after them
        pendingFlushErr = errno == 0 ? Errno.ECONNRESET : errno;
        listener.connectionEnded(errno, reason);
    }

    /** True when a failure's flush is still owed (see {@link #fail}). */
    boolean flushPending() {
        return pendingFlushErr != 0;
    }

    /** Completes every operation left by a failure with its error; returns how many were flushed. */
    int flushAfterFailure() {
        int err = pendingFlushErr;
        if (err == 0) {
            return 0;
        }
        pendingFlushErr = 0;
        int failed = flush(err);
        if (failedPeer != null) {
            PeerFailureEvent.emit(TcpParams.PROV, failedPeer, err, failed, failReason);
            failedPeer = failReason = null;
        }
        return 1;
    }

    /** fi_shutdown: tries once more to send what is queued, then closes and flushes with ECANCELED. */
    void shutdown() {
        if (conn.isEnded()) {
            flushAfterFailure();
            return;
        }
        if (conn.isOpen()) {
            progressTx();
        }
        releaseHold();
        if (conn.end()) {
            flush(Errno.ECANCELED);
        }
    }

    /** Fails every queued and posted operation; returns how many. */
    private int flush(int err) {
        int n = tx.flush(err) + rx.flush(err);
        viewCache.clear();
        return n;
    }

    /** Short state dump for test failure messages. */
    String describe() {
        return "conn[" + conn.describe() + ", " + rx.describe() + ", " + tx.describe() + "]";
    }
}
