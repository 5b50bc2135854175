package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Endpoint;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.provider.rxm.wire.RxmPacket;
import io.jfabric.util.FabricLog;

import java.lang.foreign.MemorySegment;

/**
 * What moves an rxm endpoint (libfabric's rxm_ep_progress and rxm_handle_comp): reads the core CQ and hands
 * each completion to the object that was its context, dispatches each arriving packet to its protocol by
 * its control type, polls the core EQ for connection events (every CM progress interval, or always while a
 * connection is being set up), posts deferred work and tops up receive buffers. CQ and counter reads call
 * {@link #run} under the domain lock.
 */
final class RxmProgress {
    private static final System.Logger LOG = FabricLog.logger("ofi_rxm");
    private static final int BATCH = 32;
    private static final long REMOTE_WRITE_DATA = OpFlags.REMOTE_WRITE | OpFlags.REMOTE_CQ_DATA;

    private final RxmShared s;
    private final CqEntry[] coreEntries = CqEntry.array(BATCH);
    private final CqErrEntry coreErr = new CqErrEntry();
    private final EqEntry eqEntry = new EqEntry();
    private final EqErrEntry eqErr = new EqErrEntry();
    private long lastCmPoll;
    private boolean inProgress;
    /** An application send went to a core since the last run (see {@link #burstContinues}). */
    private boolean postedSinceRun;
    /**
     * Remote CQ data read from the core while the receive CQ was full, in arrival order; the core CQ is not
     * read again until they are delivered, so the core (and through it TCP) pushes back on the writer.
     */
    private final long[] heldLen = new long[BATCH];
    private final long[] heldData = new long[BATCH];
    private int held;

    RxmProgress(RxmShared s) {
        this.s = s;
    }

    /** fi_enable: the CM interval counts from here. */
    void start() {
        lastCmPoll = System.nanoTime();
    }

    /**
     * A waiter is about to sleep on the core's event source: the first progress after the sleep reads the core
     * EQ whatever the CM interval says, since the sleep may end on a connection request (under the domain lock).
     */
    void beforeSleep() {
        lastCmPoll = System.nanoTime() - s.cmIntervalNanos;
    }

    /** Drives the core CQ, the core EQ and the deferred queues; called by CQ reads under the domain lock. */
    void run() {
        if (s.closed || inProgress) {
            return;
        }
        inProgress = true;
        postedSinceRun = false;
        try {
            s.cm.dropRemovedIfAny();
            drainCoreCq(s.params.cqEqFairness());
            long now = System.nanoTime();
            if (s.cm.manager.settingUp() > 0 || now - lastCmPoll >= s.cmIntervalNanos) {
                lastCmPoll = now;
                pollEq();
            }
            if (s.cm.hasDeferred()) {
                s.cm.flushDeferred();
            }
            if (s.rxBuffers.topUpDue()) {
                s.rxBuffers.topUp();
            }
        } finally {
            inProgress = false;
        }
    }

    /**
     * Called for each eager application send: true when another went to a core since the last run, so this
     * one may wait with it for the next run (the burst's first send leaves at once).
     */
    boolean burstContinues() {
        boolean b = postedSinceRun;
        postedSinceRun = true;
        return b;
    }

    // ---- core CQ

    /** Reads up to {@code max} core completions (and every error completion) and dispatches them. */
    private void drainCoreCq(int max) {
        if (held > 0 && !deliverHeld()) {
            return;
        }
        int reads = 0;
        int n;
        while ((n = s.coreCq.read(coreEntries, BATCH)) > 0) {
            for (int i = 0; i < n; i++) {
                CqEntry e = coreEntries[i];
                Object ctx = e.context;
                e.context = null;
                if (ctx instanceof CoreCompletion cc) {
                    cc.complete(s, e);
                } else if ((e.flags & REMOTE_WRITE_DATA) == REMOTE_WRITE_DATA) {
                    remoteWriteWithData(e.len, e.data);
                }
            }
            reads += n;
            if (n < BATCH || reads >= max || held > 0) {
                break;
            }
        }
        if (n == -Errno.EAVAIL) {
            while (s.coreCq.readError(coreErr, 0) == 1) {
                Object ctx = coreErr.context;
                coreErr.context = null;
                if (ctx instanceof CoreCompletion cc) {
                    cc.fail(s, coreErr);
                }
            }
        }
    }

    /**
     * A peer's fi_writedata landed through a core endpoint: the core reports it with no context of ours, and
     * the application sees it on rxm's receive CQ (as libfabric's rxm_handle_remote_write does). The core
     * completion does not say which connection it came from, so the source is FI_ADDR_NOTAVAIL.
     */
    private void remoteWriteWithData(long len, long data) {
        if (held == 0 && s.bindings.reserveRemoteData() || held == BATCH) {
            // held == BATCH cannot happen (one batch holds at most BATCH), but never index past the arrays
            s.bindings.reportRemoteReserved(OpFlags.RMA | OpFlags.REMOTE_WRITE, len, data);
            return;
        }
        heldLen[held] = len;
        heldData[held++] = data;
    }

    /** Delivers held remote CQ data while the receive CQ has room; true when none is left. */
    private boolean deliverHeld() {
        int done = 0;
        while (done < held && s.bindings.reserveRemoteData()) {
            s.bindings.reportRemoteReserved(OpFlags.RMA | OpFlags.REMOTE_WRITE, heldLen[done], heldData[done]);
            done++;
        }
        System.arraycopy(heldLen, done, heldLen, 0, held - done);
        System.arraycopy(heldData, done, heldData, 0, held - done);
        held -= done;
        return held == 0;
    }

    /** A core receive completed into {@code rx}: the packet goes to its protocol by its control type. */
    void received(RxBuf rx) {
        if (rx.orphan) {
            return;
        }
        CoreSrx srx = s.rxBuffers.srx;
        if (srx != null && srx.owns(rx)) {
            srx.consumed();
            if ((rx.coreFlags & OpFlags.REMOTE_WRITE) != 0) {
                writeDataArrived(rx); // no header names its connection, and none is needed
                return;
            }
            if (!srx.attach(rx)) {
                return;
            }
        }
        RxmConnection<Endpoint> c = rx.conn;
        ConnData cd = rx.cd;
        if (c == null || rx.generation != cd.generation || rx.coreEp != c.ep()) {
            rx.orphan = true;
            return;
        }
        s.rxBuffers.consumed(rx, cd);
        if ((rx.coreFlags & OpFlags.REMOTE_WRITE) != 0) {
            writeDataArrived(rx);
            return;
        }
        boolean keep;
        if (rx.tagged || (rx.coreFlags & OpFlags.TAGGED) != 0) {
            // libfabric 1.13-1.17 dyn_rbuf: a core tagged message without rxm's header is an eager tagged send
            keep = s.eager.arrived(rx, c, cd, 0, rx.len, true, rx.coreTag, rx.coreData,
                    (rx.coreFlags & OpFlags.REMOTE_CQ_DATA) != 0);
        } else {
            MemorySegment p = rx.mem;
            if (rx.len < RxmPacket.SIZE || RxmPacket.ctrlVersion(p) != 4 || RxmPacket.opVersion(p) != 2) {
                s.cm.protocolError(c, "a " + rx.len + "-byte message that is not an rxm packet (ctrl version "
                        + (rx.len > 0 ? RxmPacket.ctrlVersion(p) : -1) + ")");
                s.rxBuffers.free(rx);
                return;
            }
            keep = dispatch(rx, c, cd, p);
            if (c.ep() == null) {
                // a protocol error closed the connection
                s.rxBuffers.free(rx);
                return;
            }
        }
        boolean tagged = rx.tagged;
        Endpoint core = rx.coreEp;
        if (!keep) {
            s.rxBuffers.repost(rx);
        } else {
            RxmRxBuffers.hold(rx, cd);
        }
        if (c.ep() == core) {
            s.rxBuffers.fill(c, cd, core, tagged); // a buffer kept for an unexpected message is replaced
        }
    }

    /**
     * A core that delivers remote CQ data into a posted receive (verbs, FI_RX_CQ_DATA): the peer's writedata
     * consumed this buffer without filling it; report the data and put the buffer back.
     */
    private void writeDataArrived(RxBuf rx) {
        if ((rx.coreFlags & OpFlags.REMOTE_CQ_DATA) != 0) {
            remoteWriteWithData(0, rx.coreData);
        }
        s.rxBuffers.repost(rx);
    }

    /** One rxm packet to its protocol; returns whether the buffer is kept. */
    private boolean dispatch(RxBuf rx, RxmConnection<Endpoint> c, ConnData cd, MemorySegment p) {
        return switch (RxmPacket.ctrlType(p)) {
            case RxmPacket.CTRL_EAGER -> {
                long size = RxmPacket.size(p);
                long have = rx.len - RxmPacket.SIZE;
                if (size != have) {
                    s.cm.protocolError(c, "an eager packet announcing " + size + " bytes but carrying " + have);
                    yield false;
                }
                yield s.eager.arrived(rx, c, cd, RxmPacket.SIZE, have, RxmPacket.op(p) == RxmPacket.OP_TAGGED,
                        RxmPacket.tag(p), RxmPacket.data(p), (RxmPacket.flags(p) & RxmPacket.FLAG_REMOTE_CQ_DATA) != 0);
            }
            case RxmPacket.CTRL_SEG -> s.sar.arrived(rx, c, cd);
            case RxmPacket.CTRL_RNDV_REQ -> {
                if (rx.len < RxmPacket.SIZE + RndvHeader.SIZE || RndvHeader.totalLength(rx.rndvHeader()) < 0) {
                    s.cm.protocolError(c, "a malformed rendezvous request");
                    yield false;
                }
                yield s.rndv.arrived(rx, c, cd, RxmPacket.size(p), RxmPacket.op(p) == RxmPacket.OP_TAGGED,
                        RxmPacket.tag(p), RxmPacket.data(p), (RxmPacket.flags(p) & RxmPacket.FLAG_REMOTE_CQ_DATA) != 0);
            }
            case RxmPacket.CTRL_RNDV_RD_DONE -> {
                s.rndv.onRdDone(c, RxmPacket.msgId(p));
                yield false;
            }
            case RxmPacket.CTRL_RNDV_WR_DATA -> {
                s.rndv.onWrData(rx, c);
                yield false;
            }
            case RxmPacket.CTRL_RNDV_WR_DONE -> {
                s.rndv.onWrDone(cd, RxmPacket.msgId(p));
                yield false;
            }
            case RxmPacket.CTRL_ATOMIC -> {
                s.atomic.onRequest(rx, c, cd);
                yield false;
            }
            case RxmPacket.CTRL_ATOMIC_RESP -> {
                s.atomic.onResponse(rx, c);
                yield false;
            }
            case RxmPacket.CTRL_CREDIT -> false;
            default -> {
                LOG.log(System.Logger.Level.WARNING, "dropping unsupported rxm packet {0} from {1}",
                        RxmPacket.ctrlTypeName(RxmPacket.ctrlType(p)), c.peer());
                yield false;
            }
        };
    }

    // ---- core EQ

    /**
     * A core endpoint went down: first take every completion the core queued before it (what the peer sent
     * just before closing is data, not loss, as libfabric's rxm_close_conn flushes the MSG CQ), then fail
     * the connection.
     */
    private void peerGone(Endpoint e, int errno) {
        drainCoreCq(Integer.MAX_VALUE);
        s.cm.manager.onShutdown(e, errno);
    }

    private void pollEq() {
        ConnectionManager<Endpoint> cm = s.cm.manager;
        while (true) {
            int rc = s.coreEq.read(eqEntry, 0);
            if (rc >= 0) {
                switch (rc) {
                    case EqEvent.CONNREQ -> cm.onConnReq(eqEntry.info, eqEntry.cmData);
                    case EqEvent.CONNECTED -> {
                        if (eqEntry.fid instanceof Endpoint e) {
                            cm.onConnected(e, eqEntry.cmData);
                        }
                    }
                    case EqEvent.SHUTDOWN -> {
                        if (eqEntry.fid instanceof Endpoint e) {
                            peerGone(e, 0);
                        }
                    }
                    default -> LOG.log(System.Logger.Level.DEBUG, "ignoring core event {0}", EqEvent.toString(rc));
                }
                eqEntry.info = null;
                eqEntry.cmData = null;
                eqEntry.fid = null;
            } else if (rc == -Errno.EAVAIL) {
                if (s.coreEq.readError(eqErr, 0) < 0) {
                    return;
                }
                if (eqErr.fid instanceof Endpoint e) {
                    if (eqErr.err == Errno.ECONNREFUSED) {
                        cm.onRejected(e, eqErr.errData);
                    } else {
                        peerGone(e, eqErr.err);
                    }
                } else {
                    LOG.log(System.Logger.Level.WARNING, "core EQ error: {0}", eqErr);
                }
                eqErr.fid = null;
                eqErr.errData = null;
            } else {
                return;
            }
        }
    }
}
