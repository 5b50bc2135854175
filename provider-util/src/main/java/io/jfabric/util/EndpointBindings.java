package io.jfabric.util;

import io.jfabric.AddressVector;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.util.jfr.EndpointStatisticsEvent;

/**
 * An endpoint's bindings, libfabric's {@code util_ep} bind bookkeeping ({@code ofi_ep_bind_cq},
 * {@code ofi_ep_bind_cntr}, {@code ofi_ep_bind_eq}, {@code ofi_ep_bind_av}) plus the completion
 * reporting rules that go with them:
 *
 * <ul>
 * <li>one CQ per direction (FI_TRANSMIT, FI_RECV) and one counter per event kind (SEND, RECV, READ,
 * WRITE, REMOTE_READ, REMOTE_WRITE); binding a second is EINVAL; every bound object is
 * {@link UtilFabricObject#acquire() acquired}, so it cannot be closed under the endpoint (EBUSY)
 * until {@link #releaseAll()} on endpoint close;</li>
 * <li>FI_SELECTIVE_COMPLETION: a success CQ entry only for operations posted with FI_COMPLETION
 * ({@link #txWantsCompletion}); errors always get an entry, and counters always count;</li>
 * <li>{@link #checkEnable} gives fi_enable's ENOCQ/ENOAV/ENOEQ with a message saying what to bind.</li>
 * </ul>
 * Bind and enable are control path (synchronized); the report methods are data path: no locks, no
 * allocation (they read fields that are fixed once the endpoint is enabled).
 */
public final class EndpointBindings {
    private static final long CQ_FLAGS = BindFlags.TRANSMIT | BindFlags.RECV | BindFlags.SELECTIVE_COMPLETION;
    private static final long CNTR_FLAGS = BindFlags.TRANSMIT | BindFlags.RECV | BindFlags.READ | BindFlags.WRITE
            | BindFlags.REMOTE_READ | BindFlags.REMOTE_WRITE;

    private UtilCompletionQueue txCq;
    private UtilCompletionQueue rxCq;
    private boolean txSelective;
    private boolean rxSelective;
    private UtilCounter sendCntr;
    private UtilCounter recvCntr;
    private UtilCounter readCntr;
    private UtilCounter writeCntr;
    private UtilCounter remoteReadCntr;
    private UtilCounter remoteWriteCntr;
    private EventQueue eq;
    private AddressVector av;
    private final String what;

    /** @param what how messages name the endpoint ("tcp endpoint") */
    public EndpointBindings(String what) {
        this.what = what;
    }

    // ---- control path ----------------------------------------------------------------------------

    public synchronized void bindCq(CompletionQueue cq, long flags) {
        if (!(cq instanceof UtilCompletionQueue ucq)) {
            throw new FabricException(Errno.EINVAL, "fi_ep_bind: this CQ was not opened by this provider's domain");
        }
        if ((flags & ~CQ_FLAGS) != 0 || (flags & (BindFlags.TRANSMIT | BindFlags.RECV)) == 0) {
            throw new FabricException(Errno.EBADFLAGS, "fi_ep_bind of a CQ takes FI_TRANSMIT and/or FI_RECV"
                    + " (optionally FI_SELECTIVE_COMPLETION); got " + BindFlags.toString(flags));
        }
        boolean tx = (flags & BindFlags.TRANSMIT) != 0;
        boolean rx = (flags & BindFlags.RECV) != 0;
        if (tx && txCq != null || rx && rxCq != null) {
            throw new FabricException(Errno.EINVAL, what + " already has a " + (tx && txCq != null ? "transmit" : "receive")
                    + " CQ; one CQ per direction");
        }
        boolean selective = (flags & BindFlags.SELECTIVE_COMPLETION) != 0;
        if (tx) {
            ucq.acquire();
            txCq = ucq;
            txSelective = selective;
        }
        if (rx) {
            ucq.acquire();
            rxCq = ucq;
            rxSelective = selective;
        }
    }

    public synchronized void bindCounter(Counter counter, long flags) {
        if (!(counter instanceof UtilCounter c)) {
            throw new FabricException(Errno.EINVAL, "fi_ep_bind: this counter was not opened by this provider's domain");
        }
        if ((flags & ~CNTR_FLAGS) != 0 || flags == 0) {
            throw new FabricException(Errno.EBADFLAGS, "fi_ep_bind of a counter takes FI_SEND, FI_RECV, FI_READ,"
                    + " FI_WRITE, FI_REMOTE_READ, FI_REMOTE_WRITE; got " + BindFlags.toString(flags));
        }
        // Check all first so a refused bind changes nothing.
        refuseSecondCounter(flags, BindFlags.TRANSMIT, sendCntr, "FI_SEND");
        refuseSecondCounter(flags, BindFlags.RECV, recvCntr, "FI_RECV");
        refuseSecondCounter(flags, BindFlags.READ, readCntr, "FI_READ");
        refuseSecondCounter(flags, BindFlags.WRITE, writeCntr, "FI_WRITE");
        refuseSecondCounter(flags, BindFlags.REMOTE_READ, remoteReadCntr, "FI_REMOTE_READ");
        refuseSecondCounter(flags, BindFlags.REMOTE_WRITE, remoteWriteCntr, "FI_REMOTE_WRITE");
        sendCntr = bindIfAsked(flags, BindFlags.TRANSMIT, c, sendCntr);
        recvCntr = bindIfAsked(flags, BindFlags.RECV, c, recvCntr);
        readCntr = bindIfAsked(flags, BindFlags.READ, c, readCntr);
        writeCntr = bindIfAsked(flags, BindFlags.WRITE, c, writeCntr);
        remoteReadCntr = bindIfAsked(flags, BindFlags.REMOTE_READ, c, remoteReadCntr);
        remoteWriteCntr = bindIfAsked(flags, BindFlags.REMOTE_WRITE, c, remoteWriteCntr);
    }

    /** {@code c}, holding one more reference, when {@code flags} ask for {@code flag}; else what is bound now. */
    private static UtilCounter bindIfAsked(long flags, long flag, UtilCounter c, UtilCounter bound) {
        if ((flags & flag) == 0) {
            return bound;
        }
        c.acquire();
        return c;
    }

    /**
     * For providers that keep their own counter fields: refuses (EINVAL) binding a counter for {@code flag}
     * when one already counts that kind. Call it for every requested kind before binding any, so that a
     * refused bind changes nothing.
     */
    public static void refuseSecondCounter(long flags, long flag, Object bound, String kind) {
        if ((flags & flag) != 0 && bound != null) {
            throw new FabricException(Errno.EINVAL, "a " + kind + " counter is already bound to this endpoint;"
                    + " one counter per event kind");
        }
    }

    public synchronized void bindEq(EventQueue q) {
        if (q == null) {
            throw new FabricException(Errno.EINVAL, "fi_ep_bind of a null EQ");
        }
        if (eq != null) {
            throw new FabricException(Errno.EINVAL, what + " is already bound to an EQ");
        }
        acquireIfTracked(q);
        eq = q;
    }

    public synchronized void bindAv(AddressVector a) {
        if (a == null) {
            throw new FabricException(Errno.EINVAL, "fi_ep_bind of a null AV");
        }
        if (av != null) {
            throw new FabricException(Errno.EINVAL, what + " is already bound to an AV");
        }
        acquireIfTracked(a);
        av = a;
    }

    private static void acquireIfTracked(Object o) {
        if (o instanceof UtilFabricObject u) {
            u.acquire();
        }
    }

    /**
     * fi_enable's checks: a transmit CQ when the endpoint can send, a receive CQ when it can receive
     * (libfabric requires them even with selective completion), an AV for connectionless endpoints,
     * an EQ for connection-oriented ones.
     */
    public synchronized void checkEnable(boolean sends, boolean receives, boolean needsAv, boolean needsEq) {
        if (sends && txCq == null) {
            throw new FabricException(Errno.ENOCQ, "fi_enable: bind a CQ with FI_TRANSMIT to the " + what + " first");
        }
        if (receives && rxCq == null) {
            throw new FabricException(Errno.ENOCQ, "fi_enable: bind a CQ with FI_RECV to the " + what + " first");
        }
        if (needsAv && av == null) {
            throw new FabricException(Errno.ENOAV, "fi_enable: bind an address vector to the " + what + " first");
        }
        if (needsEq && eq == null) {
            throw new FabricException(Errno.ENOEQ, "fi_enable: bind an event queue to the " + what + " first");
        }
    }

    /** Drops every binding (endpoint close), releasing the references. */
    public synchronized void releaseAll() {
        if (txCq != null) {
            txCq.release();
        }
        if (rxCq != null) {
            rxCq.release();
        }
        for (UtilCounter c : new UtilCounter[] {sendCntr, recvCntr, readCntr, writeCntr, remoteReadCntr, remoteWriteCntr}) {
            if (c != null) {
                c.release();
            }
        }
        if (eq instanceof UtilFabricObject u) {
            u.release();
        }
        if (av instanceof UtilFabricObject u) {
            u.release();
        }
        txCq = rxCq = null;
        sendCntr = recvCntr = readCntr = writeCntr = remoteReadCntr = remoteWriteCntr = null;
        eq = null;
        av = null;
    }

    /**
     * Raises the jfabric extension {@link io.jfabric.EqEvent#PEER_FAILED} on the bound EQ, if any: the peer
     * {@code fiAddr} (address {@code peerAddr}) is gone. Control path. Returns 0, or the EQ's negative errno.
     */
    public int reportPeerFailed(Object ep, long fiAddr, byte[] peerAddr) {
        EventQueue q;
        synchronized (this) {
            q = eq;
        }
        return q instanceof UtilEventQueue u
                ? u.post(io.jfabric.EqEvent.PEER_FAILED, ep, null, fiAddr, null, peerAddr.clone()) : 0;
    }

    // ---- accessors -------------------------------------------------------------------------------

    public UtilCompletionQueue txCq() {
        return txCq;
    }

    public UtilCompletionQueue rxCq() {
        return rxCq;
    }

    public EventQueue eq() {
        return eq;
    }

    public AddressVector av() {
        return av;
    }

    public UtilCounter counter(long kind) {
        if (kind == BindFlags.TRANSMIT) {
            return sendCntr;
        } else if (kind == BindFlags.RECV) {
            return recvCntr;
        } else if (kind == BindFlags.READ) {
            return readCntr;
        } else if (kind == BindFlags.WRITE) {
            return writeCntr;
        } else if (kind == BindFlags.REMOTE_READ) {
            return remoteReadCntr;
        } else if (kind == BindFlags.REMOTE_WRITE) {
            return remoteWriteCntr;
        }
        return null;
    }

    /**
     * Fills a {@code jfabric.EndpointStatistics} sample with the bound counters' values and the bound CQs'
     * fill, capacity and losses. Runs on JFR's periodic thread: it reads the fields that binding set before
     * enable, takes no lock and drives no progress.
     */
    public void sample(EndpointStatisticsEvent e) {
        e.sends = value(sendCntr);
        e.receives = value(recvCntr);
        e.reads = value(readCntr);
        e.writes = value(writeCntr);
        e.remoteReads = value(remoteReadCntr);
        e.remoteWrites = value(remoteWriteCntr);
        long errors = -1;
        for (UtilCounter c : new UtilCounter[] {sendCntr, recvCntr, readCntr, writeCntr, remoteReadCntr, remoteWriteCntr}) {
            if (c != null) {
                errors = Math.max(errors, 0) + c.readError();
            }
        }
        e.counterErrors = errors;
        UtilCompletionQueue tx = txCq;
        UtilCompletionQueue rx = rxCq;
        e.txCqEntries = tx == null ? -1 : tx.size();
        e.rxCqEntries = rx == null ? -1 : rx.size();
        e.cqCapacity = tx != null ? tx.capacity() : rx != null ? rx.capacity() : -1;
        e.cqOverrun = tx != null && tx.isOverrun() || rx != null && rx.isOverrun();
        e.lostCompletions = (tx == null ? 0 : tx.lostCompletions()) + (rx == null || rx == tx ? 0 : rx.lostCompletions());
    }

    private static long value(UtilCounter c) {
        return c == null ? -1 : c.value();
    }

    // ---- data path -------------------------------------------------------------------------------

    /**
     * Whether a transmit-side operation posted with {@code opFlags} gets a success CQ entry. The fi_inject calls
     * never do ({@link OpRequest#INJECT_CALL}); fi_sendmsg and the other msg forms with FI_INJECT do as the binding
     * says, as in libfabric.
     */
    public boolean txWantsCompletion(long opFlags) {
        return txCq != null && (opFlags & OpRequest.INJECT_CALL) == 0
                && (!txSelective || (opFlags & OpFlags.COMPLETION) != 0);
    }

    /** Whether a receive posted with {@code opFlags} gets a success CQ entry. */
    public boolean rxWantsCompletion(long opFlags) {
        return rxCq != null && (!rxSelective || (opFlags & OpFlags.COMPLETION) != 0);
    }

    /**
     * A transmit-side operation finished: writes its CQ entry if wanted and bumps the SEND, READ or
     * WRITE counter according to {@code cqFlags}. Returns 0 or the CQ's negative errno (-EOVERRUN).
     */
    public int reportTx(Object context, long opFlags, long cqFlags, long len) {
        countTx(cqFlags);
        return txWantsCompletion(opFlags) ? txCq.write(context, cqFlags, len, 0, 0, 0) : 0;
    }

    /** A transmit-side operation failed: always an error entry (even if selective), and the error count. */
    public int reportTxError(Object context, long cqFlags, long len, long olen, int err, int provErrno) {
        UtilCounter c = txCounter(cqFlags);
        if (c != null) {
            c.incrementError();
        }
        return txCq == null ? -Errno.ENOCQ : txCq.writeError(context, cqFlags, len, 0, 0, 0, olen, err, provErrno, null);
    }

    /**
     * A transmit-side error that no posted operation owns (a connect that failed before the provider
     * accepted any operation for the peer): an error entry with provider detail in {@code errData}, and no
     * counter, since no counted operation failed.
     */
    public int reportTxFailure(Object context, long cqFlags, int err, int provErrno, byte[] errData) {
        return txCq == null ? -Errno.ENOCQ : txCq.writeError(context, cqFlags, 0, 0, 0, 0, 0, err, provErrno, errData);
    }

    /** Counts a finished transmit that gets no CQ entry of its own (an inject the core completed). */
    public void countTx(long cqFlags) {
        UtilCounter c = txCounter(cqFlags);
        if (c != null) {
            c.increment();
        }
    }

    /** A receive completed: CQ entry (with source for readfrom) if wanted, and the RECV counter. */
    public int reportRx(Object context, long opFlags, long cqFlags, long len, long buf, long data, long tag,
                        long srcAddr) {
        if (recvCntr != null) {
            recvCntr.increment();
        }
        boolean release = (cqFlags & OpFlags.MULTI_RECV) != 0;
        // A multi-recv release is always reported, even with selective completion (fi_msg(3)).
        return rxWantsCompletion(opFlags) || release && rxCq != null
                ? rxCq.writeFrom(context, cqFlags, len, buf, data, tag, srcAddr) : 0;
    }

    /** A receive failed (ETRUNC, ECANCELED ...): always an error entry, and the RECV error count. */
    public int reportRxError(Object context, long cqFlags, long len, long tag, long olen, int err, int provErrno) {
        if (recvCntr != null) {
            recvCntr.incrementError();
        }
        return rxCq == null ? -Errno.ENOCQ : rxCq.writeError(context, cqFlags, len, 0, 0, tag, olen, err, provErrno, null);
    }

    // ---- data path, for providers that reserve CQ slots when they accept an operation (FI_RM_ENABLED) ----
    // Such a provider decides at post time whether the operation gets a success entry ({@code completion},
    // from txWantsCompletion/rxWantsCompletion, false for inject) and promised it a slot with
    // UtilCompletionQueue.tryReserve ({@code reserved}); the report fills that slot.

    /** As {@link #reportTx(Object, long, long, long)} with the completion decided and its slot promised at post. */
    public int reportTx(boolean completion, boolean reserved, Object context, long cqFlags, long len) {
        countTx(cqFlags);
        return completion && txCq != null
                ? txCq.writeFrom(reserved, context, cqFlags, len, 0, 0, 0, Fabrics.ADDR_NOTAVAIL) : 0;
    }

    /** As {@link #reportTxError(Object, long, long, long, int, int)}, filling a promised slot when {@code reserved}. */
    public int reportTxError(boolean reserved, Object context, long cqFlags, long len, long olen, int err,
                             int provErrno) {
        UtilCounter c = txCounter(cqFlags);
        if (c != null) {
            c.incrementError();
        }
        return txCq == null ? -Errno.ENOCQ
                : txCq.writeError(reserved, context, cqFlags, len, 0, 0, 0, olen, err, provErrno, null);
    }

    /** As {@link #reportTxError(boolean, Object, long, long, long, int, int)}, with provider detail in {@code errData}. */
    public int reportTxError(boolean reserved, Object context, long cqFlags, long len, int err, int provErrno,
                             byte[] errData) {
        UtilCounter c = txCounter(cqFlags);
        if (c != null) {
            c.incrementError();
        }
        return txCq == null ? -Errno.ENOCQ
                : txCq.writeError(reserved, context, cqFlags, len, 0, 0, 0, 0, err, provErrno, errData);
    }

    /** As {@link #reportRx(Object, long, long, long, long, long, long, long)} with the completion decided at post. */
    public int reportRx(boolean completion, boolean reserved, Object context, long cqFlags, long len, long buf,
                        long data, long tag, long srcAddr) {
        if (recvCntr != null) {
            recvCntr.increment();
        }
        return completion && rxCq != null ? rxCq.writeFrom(reserved, context, cqFlags, len, buf, data, tag, srcAddr) : 0;
    }

    /**
     * FI_SOURCE_ERR: a receive completed with a message from a sender the AV does not hold. The data is in the
     * buffer, and the entry is an error (EADDRNOTAVAIL) whose err_data is the sender's address as av.insert
     * takes it (fi_cq(3)); it counts as a receive error. {@code reserved}: the slot was promised at post.
     */
    public int reportRxSourceError(boolean reserved, Object context, long cqFlags, long len, long buf, long data,
                                   long tag, byte[] rawSrc) {
        if (recvCntr != null) {
            recvCntr.incrementError();
        }
        return rxCq == null ? -Errno.ENOCQ
                : rxCq.writeSourceError(reserved, context, cqFlags, len, buf, data, tag, rawSrc);
    }

    /**
     * As {@link #reportRxError(Object, long, long, long, long, int, int)}, filling a promised slot when
     * {@code reserved}, with the bytes' address and the CQ data of what did arrive (a truncated message).
     */
    public int reportRxError(boolean reserved, Object context, long cqFlags, long len, long buf, long data, long tag,
                             long olen, int err, int provErrno) {
        if (recvCntr != null) {
            recvCntr.incrementError();
        }
        return rxCq == null ? -Errno.ENOCQ
                : rxCq.writeError(reserved, context, cqFlags, len, buf, data, tag, olen, err, provErrno, null);
    }

    /**
     * A posted transmit-side operation failed with provider detail in {@code errData} (a verbs work completion's
     * status text): an error entry filling a promised slot when {@code reserved}, and the error count.
     */
    public int reportTxErrorDetail(boolean reserved, Object context, long cqFlags, long len, int err, int provErrno,
                                   byte[] errData) {
        UtilCounter c = txCounter(cqFlags);
        if (c != null) {
            c.incrementError();
        }
        return txCq == null ? -Errno.ENOCQ
                : txCq.writeError(reserved, context, cqFlags, len, 0, 0, 0, 0, err, provErrno, errData);
    }

    /** As {@link #reportTxErrorDetail} for a posted receive: the error entry and the RECV error count. */
    public int reportRxErrorDetail(boolean reserved, Object context, long cqFlags, long len, int err, int provErrno,
                                   byte[] errData) {
        if (recvCntr != null) {
            recvCntr.incrementError();
        }
        return rxCq == null ? -Errno.ENOCQ
                : rxCq.writeError(reserved, context, cqFlags, len, 0, 0, 0, 0, err, provErrno, errData);
    }

    /** The counter of a transmit-side operation: READ, WRITE or SEND by its completion flags. */
    private UtilCounter txCounter(long cqFlags) {
        return (cqFlags & OpFlags.READ) != 0 ? readCntr : (cqFlags & OpFlags.WRITE) != 0 ? writeCntr : sendCntr;
    }

    /**
     * A receive got a message larger than its buffers: an ETRUNC error entry with the remote CQ data and
     * tag of the message, {@code olen} the bytes cut off, and the RECV error count.
     */
    public int reportRxTruncated(Object context, long cqFlags, long len, long olen, long data, long tag) {
        return reportRxError(false, context, cqFlags, len, 0, data, tag, olen, Errno.ETRUNC, Errno.ETRUNC);
    }

    /**
     * A receive-side error entry that no counter counts, because no message failed: fi_cancel's ECANCELED,
     * or the ENOMSG of an FI_PEEK that found nothing (fi_tagged(3)).
     */
    public int reportRxUncounted(Object context, long cqFlags, long tag, int err, int provErrno) {
        return rxCq == null ? -Errno.ENOCQ : rxCq.writeError(context, cqFlags, 0, 0, 0, tag, 0, err, provErrno, null);
    }

    /**
     * Promises the receive-CQ slot that a peer's remote CQ data will fill (true when no CQ is bound), so a
     * provider can hold the data back, and push back on the peer, instead of overrunning a full CQ.
     */
    public boolean reserveRemoteData() {
        UtilCompletionQueue cq = rxCq;
        return cq == null || cq.tryReserve();
    }

    /** Returns a promise of {@link #reserveRemoteData()} that will not be filled. */
    public void cancelRemoteData() {
        UtilCompletionQueue cq = rxCq;
        if (cq != null) {
            cq.cancelReservation();
        }
    }

    /** As {@link #reportRemote(long, long, long, boolean)} with CQ data, filling a {@link #reserveRemoteData()} slot. */
    public int reportRemoteReserved(long cqFlags, long len, long data) {
        reportRemote(cqFlags, len, data, false);
        UtilCompletionQueue cq = rxCq;
        return cq == null ? 0
                : cq.writeFrom(true, null, cqFlags | OpFlags.REMOTE_CQ_DATA, len, 0, data, 0, Fabrics.ADDR_NOTAVAIL);
    }

    /** A peer's RMA hit this endpoint: REMOTE_READ/REMOTE_WRITE counter, and with remote CQ data an rx entry. */
    public int reportRemote(long cqFlags, long len, long data, boolean withCqData) {
        UtilCounter c = (cqFlags & OpFlags.REMOTE_READ) != 0 ? remoteReadCntr : remoteWriteCntr;
        if (c != null) {
            c.increment();
        }
        if (withCqData && rxCq != null) {
            return rxCq.write(null, cqFlags | OpFlags.REMOTE_CQ_DATA, len, 0, data, 0);
        }
        return 0;
    }

    /** As {@link #reportRemote(long, long, long, boolean)}, with the initiator's fi_addr for readfrom. */
    public int reportRemote(long cqFlags, long len, long data, boolean withCqData, long srcAddr) {
        UtilCounter c = (cqFlags & OpFlags.REMOTE_READ) != 0 ? remoteReadCntr : remoteWriteCntr;
        if (c != null) {
            c.increment();
        }
        if (withCqData && rxCq != null) {
            return rxCq.writeFrom(null, cqFlags | OpFlags.REMOTE_CQ_DATA, len, 0, data, 0, srcAddr);
        }
        return 0;
    }
}
