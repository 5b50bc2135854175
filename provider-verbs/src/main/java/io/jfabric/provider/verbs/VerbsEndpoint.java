package io.jfabric.provider.verbs;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.OpFlags;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.util.AtomicRequest;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.OpRequest;
import io.jfabric.util.UtilEndpoint;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Mirrors libfabric's verbs FI_EP_MSG endpoint: an RC queue pair ({@link VerbsQp}) on an rdma_cm id whose
 * connection {@link VerbsCm} manages through the bound EQ. This class is the facade and the control path
 * (bind, enable, connect/accept, close, options); provider-util's base endpoint turns the data-path entry
 * points into requests for {@link VerbsMsg} and {@link VerbsRma}; a bound {@link VerbsSharedRx} gives the QP its
 * SRQ. Differences from libfabric: no FI_EP_MSG shared transmit contexts, no cancel (verbs cannot take back a posted
 * work request). Threading: FI_THREAD_SAFE (what hints with no level get) takes the domain's {@link VerbsDataLock}
 * around posts; FI_THREAD_DOMAIN none.
 */
final class VerbsEndpoint extends UtilEndpoint {
    private final VerbsDomain domain;
    private final FabricInfo info;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
    private final long defaultTxFlags;
    private final long defaultRxFlags;
    private final VerbsQp qp;
    private final VerbsCm cm;
    private final VerbsMsg msg;
    private final VerbsRma rma;
    private final VerbsAtomic atomic;

    private final EndpointBindings bindings = new EndpointBindings("verbs endpoint");
    /** The shared receive context whose SRQ the QP takes its receives from, or null. */
    private VerbsSharedRx srx;

    VerbsEndpoint(VerbsDomain domain, FabricInfo info, Object userContext) {
        this.domain = domain;
        this.info = info.copy();
        VerbsDevice dev = domain.device();
        int txSize = clamp(info.txAttr == null ? 0 : info.txAttr.size, VerbsInfos.DEFAULT_QUEUE_SIZE, dev.maxQpWr());
        int rxSize = clamp(info.rxAttr == null ? 0 : info.rxAttr.size, VerbsInfos.DEFAULT_QUEUE_SIZE, dev.maxQpWr());
        int iovLimit = clamp(info.txAttr == null ? 0 : info.txAttr.iovLimit, VerbsInfos.DEFAULT_IOV_LIMIT, dev.maxSge());
        int rxIovLimit = clamp(info.rxAttr == null ? 0 : info.rxAttr.iovLimit, VerbsInfos.DEFAULT_IOV_LIMIT,
                dev.maxSge());
        long inject = info.txAttr == null || info.txAttr.injectSize == 0 ? VerbsInfos.DEFAULT_INJECT_SIZE
                : info.txAttr.injectSize;
        defaultTxFlags = info.txAttr == null ? 0 : info.txAttr.opFlags;
        defaultRxFlags = info.rxAttr == null ? 0 : info.rxAttr.opFlags;
        try {
            honourTxLevels(VerbsInfos.TX_LEVELS, defaultTxFlags, "verbs endpoint");
            cm = new VerbsCm(this, userContext, domain, arena, errno, info.handle, info.srcAddr, info.destAddr,
                    info.domainAttr == null ? null : info.domainAttr.name);
        } catch (FabricException e) {
            arena.close();
            throw e;
        }
        qp = new VerbsQp(cm, arena, txSize, rxSize, iovLimit, rxIovLimit, inject);
        msg = new VerbsMsg(qp);
        rma = new VerbsRma(qp);
        atomic = new VerbsAtomic(qp, domain, arena);
        // taken around every post, by UtilEndpoint: a no-op below FI_THREAD_SAFE (VerbsDataLock)
        lockHooksWith(domain.dataLock().asLock());
        domain.acquire();
    }

    private static int clamp(long asked, int dflt, int max) {
        long v = asked > 0 ? asked : dflt;
        return (int) Math.max(1, Math.min(v, max));
    }

    // ---- control path -------------------------------------------------------------------------

    @Override
    public void bind(CompletionQueue cq, long flags) {
        if (!(cq instanceof VerbsCq vcq) || vcq.domain() != domain) {
            throw new FabricException(Errno.EINVAL, "bind a CQ opened on this endpoint's verbs domain");
        }
        if (qp.created()) {
            throw new FabricException(Errno.EOPBADSTATE, "endpoint is already enabled; bind CQs before enable()");
        }
        if ((flags & (BindFlags.TRANSMIT | BindFlags.RECV)) == 0) {
            throw new FabricException(Errno.EBADFLAGS, "bind a CQ with FI_TRANSMIT and/or FI_RECV");
        }
        // one CQ per direction, as util_ep (a second one is refused before anything is bound); other flags are
        // ignored, as before the bindings
        bindings.bindCq(vcq, flags & (BindFlags.TRANSMIT | BindFlags.RECV | BindFlags.SELECTIVE_COMPLETION));
    }

    @Override
    public synchronized void bind(EventQueue queue) {
        if (!(queue instanceof VerbsEq veq)) {
            throw new FabricException(Errno.EINVAL, "bind an EQ opened on the verbs fabric");
        }
        cm.bindEq(veq);
    }

    @Override
    public void bind(AddressVector av) {
        throw new FabricException(Errno.EINVAL, "FI_EP_MSG endpoints connect instead of using an address vector");
    }

    @Override
    public void bind(Counter counter, long flags) {
        throw new FabricException(Errno.ENOSYS, "the verbs provider has no counters");
    }

    @Override
    public synchronized void bind(io.jfabric.SharedRxContext context) {
        if (!(context instanceof VerbsSharedRx s) || s.domain() != domain) {
            throw new FabricException(Errno.EINVAL, "verbs endpoints bind shared receive contexts of their own domain");
        }
        if (qp.created() || srx != null || cm.isClosed()) {
            throw new FabricException(Errno.EINVAL, "bind one shared receive context before enabling the endpoint");
        }
        s.attach();
        srx = s;
        qp.useSharedRx(s);
    }

    @Override
    public synchronized void enable() {
        if (qp.created()) {
            return;
        }
        if (!cm.hasEq()) {
            throw new FabricException(Errno.ENOEQ, "bind an EQ before enable(): connection events arrive there");
        }
        if (bindings.txCq() == null || bindings.rxCq() == null) {
            throw new FabricException(Errno.ENOCQ, "bind CQs for both FI_TRANSMIT and FI_RECV before enable() "
                    + "(a verbs QP needs a send and a receive CQ; one CQ may serve both)");
        }
        qp.create(cm.id(), domain.pd(), bindings, arena, errno);
        if (srx != null) {
            srx.enabled(bindings.rxCq());
        }
        AsyncEvents.of(domain.device()).add(qp.handle(), cm);
        cm.enabled();
    }

    @Override
    public synchronized void connect(byte[] addr, byte[] data) {
        cm.checkConnect(addr);
        enable();
        cm.connect(addr, data);
    }

    @Override
    public synchronized void accept(byte[] data) {
        cm.checkAccept();
        enable();
        cm.accept(data);
    }

    @Override
    public synchronized void shutdown(long flags) {
        cm.shutdown();
    }

    /** The QP reached RTS (accepted, or ESTABLISHED): the moment to tune it. */
    void inRts() {
        qp.setRnrTimer();
    }

    @Override
    public byte[] getName() {
        return cm.name();
    }

    @Override
    public void setName(byte[] addr) {
        cm.setName(addr);
    }

    @Override
    public byte[] getPeer() {
        return cm.peer();
    }

    @Override
    public long getOpt(EndpointOption option) {
        return switch (option) {
            case CM_DATA_SIZE -> VerbsInfos.CM_DATA_SIZE;
            case TX_SIZE -> qp.txSize;
            case RX_SIZE -> qp.rxSize;
            default -> throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " is not supported by verbs");
        };
    }

    @Override
    public void setOpt(EndpointOption option, long value) {
        throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " cannot be set on verbs endpoints");
    }

    @Override
    public int cancel(Object context) {
        return -Errno.ENOSYS; // a posted verbs work request cannot be taken back
    }

    @Override
    public synchronized void close() {
        if (cm.isClosed()) {
            return;
        }
        if (qp.created()) {
            cm.disconnectForClose();
            AsyncEvents.of(domain.device()).remove(qp.handle());
            qp.drainAndDestroy(cm.id(), errno);
        }
        cm.close();
        atomic.close();
        if (srx != null) {
            srx.detach();
        }
        bindings.releaseAll();
        domain.release();
        arena.close();
    }

    // ---- data path: util's entry points land here ---------------------------------------------

    @Override
    protected long txFlags() {
        return defaultTxFlags;
    }

    @Override
    protected long rxFlags() {
        return defaultRxFlags;
    }

    @Override
    protected int postSend(OpRequest op) {
        if ((op.flags & OpFlags.TAGGED) != 0) {
            return -Errno.ENOSYS; // no FI_TAGGED on verbs
        }
        return msg.send(op);
    }

    @Override
    protected int postRecv(OpRequest op) {
        if ((op.flags & OpFlags.TAGGED) != 0) {
            return -Errno.ENOSYS;
        }
        // with a bound srx the QP has no receive queue of its own: the SRQ takes the endpoint's receives
        return srx != null ? srx.postRecv(op) : msg.recv(op);
    }

    @Override
    protected int postRead(OpRequest op) {
        return rma.read(op);
    }

    @Override
    protected int postWrite(OpRequest op) {
        return rma.write(op);
    }

    @Override
    protected int postAtomic(AtomicRequest op) {
        return atomic.post(op);
    }

    @Override
    protected long atomicLimit(int kind, AtomicDatatype datatype, AtomicOp op) {
        return atomic.limit(kind, datatype, op);
    }

    @Override
    public String toString() {
        return "VerbsEndpoint[" + qp + ", " + cm + "]";
    }
}
