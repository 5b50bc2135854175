package io.jfabric.provider.rxm;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Endpoint;
import io.jfabric.EndpointOption;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.util.EndpointBindings;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;
import io.jfabric.RmaMsg;
import io.jfabric.TaggedMsg;
import io.jfabric.provider.rxm.conn.ConnState;
import io.jfabric.provider.rxm.conn.ConnectionListener;
import io.jfabric.provider.rxm.conn.ConnectionManager;
import io.jfabric.provider.rxm.conn.PeerTable;
import io.jfabric.provider.rxm.conn.RxmConnection;
import io.jfabric.provider.rxm.proto.ProtocolSelector;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.provider.rxm.wire.RxmPacket;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * ofi_rxm's FI_EP_RDM endpoint ({@code struct rxm_ep}, prov/rxm/src/rxm_ep.c, rxm_msg.c, rxm_tagged.c,
 * rxm_cq.c): connectionless messages, tagged messages and RMA over on-demand core FI_EP_MSG connections.
 *
 * <p>Sends pick eager, SAR or rendezvous ({@link ProtocolSelector}); receives match against posted and
 * unexpected queues ({@link RecvQueue}); progress reads the core CQ and, every CM progress interval (or
 * always while a connection is being set up), the core EQ. Transmits the core refuses with EAGAIN after
 * rxm has accepted the operation wait in the connection's deferred queue. Buffers come from pools that
 * grow until warm; orphaned buffers (their connection failed while the core still held them) are never
 * reused, so a late completion can never touch a live operation.
 *
 * <p>Differences from libfabric: receive buffers are posted per connection (no shared receive context);
 * the dyn_rbuf path copies from a bounce buffer instead of placing data directly; no atomics, counters or
 * FI_BUFFERED_RECV; the receiver completes a read rendezvous once its reads finish, without waiting for
 * the rd_done packet's own send completion.
 */
final class RxmEndpoint implements Endpoint, ConnectionListener<Endpoint> {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("ofi_rxm");
    private static final int BATCH = 32;
    /** Receive buffers of each kind a new connection starts with (see {@link #prepostReceives}). */
    static final int RX_INITIAL = 2;
    /** What a new connection starts with here: {@link #RX_INITIAL} over a TCP core, msg_rx_size otherwise. */
    private final int rxInitial;
    /** Capacity of the core EQ: connection events of this many peers may be queued before rxm reads them. */
    static final int CORE_EQ_SIZE = 16384;
    private static final long PID = ProcessHandle.current().pid();

    final RxmDomain domain;
    final FabricInfo info;
    final RxmParams params;
    private final Object lock;
    final EventQueue coreEq;
    final CompletionQueue coreCq;
    final PassiveEndpoint pep;
    private final byte[] localAddr;
    private final PeerTable peers = new PeerTable();
    private final ConnectionManager<Endpoint> cm;

    private final boolean dynRbuf;
    private final long eagerLimit;
    private final long bufferSize;
    private final ProtocolSelector selector;
    private final boolean directSend;
    private final boolean coreVirtAddr;
    private final int coreIovLimit;
    private final long coreInjectSize;
    private final long injectSize;
    private final boolean rndvWrite;
    private final long cmIntervalNanos;
    private final int rxTarget;

    private RxmCq txCq;
    private RxmCq rxCq;
    /** Counters bound for FI_SEND, FI_RECV, FI_READ and FI_WRITE (null when none). */
    private RxmCounter txCntr;
    private RxmCounter rxCntr;
    private RxmCounter rdCntr;
    private RxmCounter wrCntr;
    private boolean txSelective;
    private boolean rxSelective;
    private RxmAv av;
    private boolean enabled;
    private boolean closed;
    private final long caps;

    private final RecvQueue recvQ;
    private final RecvQueue trecvQ;
    private long minMultiRecv = 16384;

    // pools
    private TxOp[] txOps;
    private int[] txFree;
    private int txFreeTop;
    private TxBuf txBufFree;
    private RxBuf rxFree;
    private RxBuf rxFreeTagged;
    private RecvEntry recvFree;
    private Unexpected unexpFree;
    private int unexpBuffers;
    private boolean needTopUp;
    @SuppressWarnings("unchecked")
    private RxmConnection<Endpoint>[] connByFiAddr = new RxmConnection[0];
    private final List<RxmConnection<Endpoint>> deferredConns = new ArrayList<>();

    // progress scratch
    private final CqEntry[] coreEntries = CqEntry.array(BATCH);
    private final CqErrEntry coreErr = new CqErrEntry();
    private final EqEntry eqEntry = new EqEntry();
    private final EqErrEntry eqErr = new EqErrEntry();
    private long lastCmPoll;
    private final MemorySegment[] one = new MemorySegment[1];
    private final MemoryRegion[] oneDesc = new MemoryRegion[1];
    private boolean inProgress;
    /**
     * Whether the core needs a registration for every local buffer (FI_MR_LOCAL, verbs): then each bounce
     * buffer is registered once when the pool creates it and passed as the core desc, as libfabric's rxm
     * registers its buffer pools.
     */
    private final boolean coreMrLocal;
    /** The bounce buffers' core registrations, closed with the endpoint (after its core endpoints). */
    private final List<MemoryRegion> bounceMrs = new ArrayList<>();
    /** Receive and transmit buffers come from registered slabs (one core registration per slab). */
    private final BounceSlabs rxSlabs;
    private final BounceSlabs txSlabs;

    RxmEndpoint(RxmDomain domain, FabricInfo info) {
        this.domain = domain;
        this.info = info.copy();
        this.params = domain.fabric.params;
        this.lock = domain.lock;
        this.caps = info.caps == 0 ? RxmProvider.CAPS : info.caps;
        boolean directed = (caps & Caps.DIRECTED_RECV) != 0;
        recvQ = new RecvQueue(false, directed);
        trecvQ = new RecvQueue(true, directed);

        FabricInfo core = domain.coreInfo;
        dynRbuf = params.enableDynRbuf() && domain.coreTagged;
        bufferSize = params.bufferSize();
        eagerLimit = params.eagerLimit(dynRbuf);
        rndvWrite = params.useRndvWrite();
        coreIovLimit = core.txAttr == null || core.txAttr.iovLimit == 0 ? 4 : (int) core.txAttr.iovLimit;
        coreInjectSize = core.txAttr == null ? 0 : core.txAttr.injectSize;
        injectSize = info.txAttr == null || info.txAttr.injectSize == 0
                ? (coreInjectSize > RxmPacket.SIZE ? coreInjectSize - RxmPacket.SIZE : Math.max(0, coreInjectSize))
                : info.txAttr.injectSize;
        int mr = core.domainAttr == null ? 0 : core.domainAttr.mrMode;
        coreVirtAddr = mr == MrMode.BASIC || (mr & MrMode.VIRT_ADDR) != 0;
        directSend = params.enableDirectSend() && (mr & MrMode.LOCAL) == 0;
        coreMrLocal = (mr & MrMode.LOCAL) != 0;
        selector = new ProtocolSelector(bufferSize, eagerLimit, params.sarLimit(dynRbuf), dynRbuf, rndvWrite,
                coreIovLimit);
        cmIntervalNanos = Math.max(0, params.cmProgressInterval()) * 1000L;
        rxTarget = (int) Math.max(4, Math.min(params.msgRxSize(), 4096));
        rxSlabs = new BounceSlabs(RxBuf.size(eagerLimit), this::registerBounce);
        txSlabs = new BounceSlabs(TxBuf.size(Math.max(bufferSize, eagerLimit)), this::registerBounce);
        // growing the posted buffers on demand relies on the core holding what arrives while none is posted (a
        // TCP socket does); over verbs a missing receive is an RNR NAK and a retry timer per message, so a
        // connection there posts its whole msg_rx_size at once, as libfabric's rxm does
        boolean coreBuffers = core.epAttr != null && core.epAttr.protocol == io.jfabric.Protocol.SOCK_TCP;
        rxInitial = coreBuffers ? Math.min(RX_INITIAL, rxTarget) : rxTarget;

        int txSize = (int) Math.max(16, Math.min(info.txAttr == null || info.txAttr.size == 0 ? params.txSize()
                : info.txAttr.size, 1 << 16));
        txOps = new TxOp[txSize];
        txFree = new int[txSize];
        for (int i = 0; i < txSize; i++) {
            txOps[i] = new TxOp(i);
            txFree[txSize - 1 - i] = i;
        }
        txFreeTop = txSize;

        EventQueue eq = null;
        CompletionQueue cq = null;
        PassiveEndpoint p = null;
        try {
            // one CONNREQ or CONNECTED per peer may be queued at once: room for a crowd (the queue holds only
            // what is queued, so the size costs nothing until used)
            EqAttr eqAttr = EqAttr.defaults();
            eqAttr.size = CORE_EQ_SIZE;
            eq = domain.fabric.core.openEq(eqAttr);
            cq = domain.core.openCq(CqAttr.of(CqFormat.TAGGED, 16384));
            FabricInfo pepInfo = core.copy();
            if (info.srcAddr != null) {
                pepInfo.srcAddr = info.srcAddr.clone();
            }
            pepInfo.destAddr = null;
            p = domain.fabric.core.openPassiveEndpoint(pepInfo);
            p.bind(eq);
            p.listen();
            if (p.cmDataSize() < 24) {
                throw new FabricException(Errno.EOPNOTSUPP, "core provider " + core.providerName()
                        + " carries only " + p.cmDataSize() + " bytes of CM data; ofi_rxm needs 24");
            }
        } catch (RuntimeException e) {
            closeQuietly(p);
            closeQuietly(cq);
            closeQuietly(eq);
            throw e;
        }
        coreEq = eq;
        coreCq = cq;
        pep = p;
        localAddr = pep.getName();
        cm = new ConnectionManager<>(peers, new CoreCmAdapter(this), this, localAddr, PID, eagerLimit,
                params.msgRxSize());
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "close: {0}", e.getMessage());
        }
    }

    // =========================================================================================
    // control path
    // =========================================================================================

    @Override
    public void bind(CompletionQueue cq, long flags) {
        if (!(cq instanceof RxmCq r)) {
            throw new FabricException(Errno.EINVAL, "bind an ofi_rxm endpoint to a CQ of the same ofi_rxm domain");
        }
        synchronized (lock) {
            if ((flags & BindFlags.TRANSMIT) != 0) {
                txCq = r;
                txSelective = (flags & BindFlags.SELECTIVE_COMPLETION) != 0;
            }
            if ((flags & BindFlags.RECV) != 0) {
                rxCq = r;
                rxSelective = (flags & BindFlags.SELECTIVE_COMPLETION) != 0;
            }
        }
        r.attach(this);
    }

    @Override
    public void bind(EventQueue eq) {
        // RDM endpoints raise no CM events; an EQ serves only asynchronous AV inserts, bound on the AV.
    }

    @Override
    public void bind(AddressVector av) {
        if (!(av instanceof RxmAv r)) {
            throw new FabricException(Errno.EINVAL, "bind an ofi_rxm endpoint to an AV of the same ofi_rxm domain");
        }
        synchronized (lock) {
            if (this.av != null) {
                throw new FabricException(Errno.EINVAL, "this endpoint is already bound to an AV");
            }
            this.av = r;
        }
        r.bindEndpoint();
    }

    @Override
    public void bind(Counter counter, long flags) {
        if (!(counter instanceof RxmCounter c)) {
            throw new FabricException(Errno.EINVAL, "bind an ofi_rxm endpoint to a counter of the same ofi_rxm domain");
        }
        if ((flags & (BindFlags.REMOTE_READ | BindFlags.REMOTE_WRITE)) != 0) {
            // RMA lands through the core endpoint, unseen by rxm: counting it needs FI_RMA_EVENT, not offered
            throw new FabricException(Errno.ENOSYS, "ofi_rxm counts no remote RMA (FI_RMA_EVENT is not offered)");
        }
        synchronized (lock) {
            // a second counter for a kind would leave the first bound but forgotten, so never closable
            EndpointBindings.refuseSecondCounter(flags, BindFlags.TRANSMIT, txCntr, "FI_SEND");
            EndpointBindings.refuseSecondCounter(flags, BindFlags.RECV, rxCntr, "FI_RECV");
            EndpointBindings.refuseSecondCounter(flags, BindFlags.READ, rdCntr, "FI_READ");
            EndpointBindings.refuseSecondCounter(flags, BindFlags.WRITE, wrCntr, "FI_WRITE");
            if ((flags & BindFlags.TRANSMIT) != 0) {
                txCntr = c;
            }
            if ((flags & BindFlags.RECV) != 0) {
                rxCntr = c;
            }
            if ((flags & BindFlags.READ) != 0) {
                rdCntr = c;
            }
            if ((flags & BindFlags.WRITE) != 0) {
                wrCntr = c;
            }
        }
        c.attach(this);
    }

    /** Counts a finished transmit on the counter bound for its kind (send, RMA read or write). */
    private void countTx(TxOp op, boolean ok) {
        long f = op.cqFlags;
        RxmCounter c = (f & OpFlags.READ) != 0 ? rdCntr : (f & OpFlags.WRITE) != 0 ? wrCntr : txCntr;
        count(c, ok);
    }

    private static void count(RxmCounter c, boolean ok) {
        if (c == null) {
            return;
        }
        if (ok) {
            c.increment();
        } else {
            c.incrementError();
        }
    }

    @Override
    public void enable() {
        synchronized (lock) {
            if (txCq == null || rxCq == null) {
                throw new FabricException(Errno.ENOCQ, "bind a CQ for FI_TRANSMIT and one for FI_RECV before enable");
            }
            if (av == null) {
                throw new FabricException(Errno.ENOAV, "bind an AV before enable; RDM endpoints address peers by fi_addr");
            }
            enabled = true;
            lastCmPoll = System.nanoTime();
        }
    }

    @Override
    public void connect(byte[] addr, byte[] data) {
        throw new FabricException(Errno.EOPNOTSUPP, "ofi_rxm endpoints are connectionless: insert the peer in the "
                + "AV and send; connections are made on demand");
    }

    @Override
    public void accept(byte[] data) {
        throw new FabricException(Errno.EOPNOTSUPP, "ofi_rxm endpoints accept connections on their own");
    }

    @Override
    public void shutdown(long flags) {
        throw new FabricException(Errno.EOPNOTSUPP, "ofi_rxm endpoints are connectionless; close the endpoint");
    }

    @Override
    public byte[] getName() {
        return localAddr.clone();
    }

    @Override
    public void setName(byte[] addr) {
        throw new FabricException(Errno.EOPNOTSUPP, "set the address through the info's src_addr before opening");
    }

    @Override
    public byte[] getPeer() {
        throw new FabricException(Errno.EOPNOTSUPP, "ofi_rxm endpoints are connectionless and have no single peer");
    }

    @Override
    public long getOpt(EndpointOption option) {
        return switch (option) {
            case MIN_MULTI_RECV -> minMultiRecv;
            case CM_DATA_SIZE -> 0;
            default -> throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " is not supported by ofi_rxm");
        };
    }

    @Override
    public void setOpt(EndpointOption option, long value) {
        if (option == EndpointOption.MIN_MULTI_RECV) {
            synchronized (lock) {
                minMultiRecv = value;
            }
            return;
        }
        throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " cannot be set on ofi_rxm endpoints");
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            cm.closeAll();
            cancelPosted(recvQ);
            cancelPosted(trecvQ);
        }
        if (txCq != null) {
            txCq.detach(this);
        }
        if (rxCq != null && rxCq != txCq) {
            rxCq.detach(this);
        }
        for (RxmCounter c : new RxmCounter[] {txCntr, rxCntr, rdCntr, wrCntr}) {
            if (c != null) {
                c.detach(this);
            }
        }
        closeQuietly(pep);
        closeQuietly(coreCq);
        closeQuietly(coreEq);
        for (MemoryRegion mr : bounceMrs) {
            closeQuietly(mr);
        }
        bounceMrs.clear();
        if (av != null) {
            av.unbindEndpoint();
        }
        domain.release();
    }

    private void cancelPosted(RecvQueue q) {
        for (RecvEntry e = q.postedHead; e != null; ) {
            RecvEntry n = e.next;
            q.remove(e);
            if (rxCq != null) {
                rxCq.error(e.context, OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG), 0, 0,
                        Errno.ECANCELED, e.tag, 0);
            }
            e = n;
        }
    }

    @Override
    public int cancel(Object context) {
        synchronized (lock) {
            RecvQueue q = trecvQ;
            RecvEntry e = q.findPostedByContext(context);
            if (e == null) {
                q = recvQ;
                e = q.findPostedByContext(context);
            }
            if (e == null) {
                return -Errno.ENOENT;
            }
            q.remove(e);
            rxCq.error(e.context, OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG), 0, 0,
                    Errno.ECANCELED, e.tag, 0);
            releaseRecv(e);
            return 0;
        }
    }

    /** State for failure dumps: connections, queues, pools. */
    @Override
    public String toString() {
        synchronized (lock) {
            return "RxmEndpoint[" + io.jfabric.provider.rxm.conn.SockAddr.toString(localAddr) + ", dyn_rbuf="
                    + dynRbuf + ", eager=" + eagerLimit + ", sar=" + selector.sarLimit() + ", rndv=" + (rndvWrite ? "write" : "read") + ", tx free " + txFreeTop
                    + "/" + txOps.length + ", unexpected msg " + recvQ.unexpCount + " tagged " + trecvQ.unexpCount
                    + ", unexpected buffers " + unexpBuffers + ", deferred conns " + deferredConns.size() + "\n  "
                    + recvQ.describe() + "\n  " + trecvQ.describe() + "\n" + cm + connDetails() + "]";
        }
    }

    private String connDetails() {
        StringBuilder b = new StringBuilder();
        for (RxmConnection<Endpoint> c : cm.open()) {
            ConnData cd = data(c);
            b.append("\n  ").append(c.peer()).append(": posted ").append(cd.postedUntagged).append(" untagged, ")
                    .append(cd.postedTagged).append(" tagged, deferred ").append(cd.deferred.size())
                    .append(", in flight ").append(cd.inflight != null).append(", core ").append(c.ep());
        }
        return b.toString();
    }

    // =========================================================================================
    // connections
    // =========================================================================================

    private RxmConnection<Endpoint> connFor(long fiAddr) {
        if (fiAddr >= 0 && fiAddr < connByFiAddr.length) {
            RxmConnection<Endpoint> c = connByFiAddr[(int) fiAddr];
            if (c != null) {
                return c;
            }
        }
        byte[] a = av == null ? null : av.addr(fiAddr);
        if (a == null || fiAddr > Integer.MAX_VALUE - 8) {
            return null;
        }
        RxmConnection<Endpoint> c = cm.connection(peers.bind(a, fiAddr));
        data(c);
        if (fiAddr >= connByFiAddr.length) {
            connByFiAddr = java.util.Arrays.copyOf(connByFiAddr, (int) Math.max(fiAddr + 1, connByFiAddr.length * 2L));
        }
        connByFiAddr[(int) fiAddr] = c;
        return c;
    }

    private static ConnData data(RxmConnection<Endpoint> c) {
        if (c.attachment == null) {
            c.attachment = new ConnData();
        }
        return (ConnData) c.attachment;
    }

    /** Source fi_addr of what arrives on {@code c}, resolving peers the application inserted after they connected. */
    private long srcOf(RxmConnection<Endpoint> c) {
        long fi = c.peer().fiAddr();
        ConnData cd = data(c);
        if (fi == Fabrics.ADDR_NOTAVAIL && av != null && cd.avVersionSeen != av.version()) {
            cd.avVersionSeen = av.version();
            fi = av.fiAddrOf(c.peer().addr());
            if (fi != Fabrics.ADDR_NOTAVAIL) {
                peers.bind(c.peer().addr(), fi);
            }
        }
        return fi;
    }

    /**
     * Called by the adapter while opening a core endpoint for {@code c}: posts the first {@link #rxInitial}
     * buffers of each kind. A connection that runs dry gets more (up to msg_rx_size), so an endpoint with
     * thousands of mostly idle peers holds a few buffers per peer, not msg_rx_size of them: each posted
     * buffer costs eager_limit bytes and a slot of the core CQ, which would otherwise run out after
     * capacity / (2 x msg_rx_size) connections and leave every later one with nothing posted.
     */
    void prepostReceives(RxmConnection<Endpoint> c, Endpoint core) {
        ConnData cd = data(c);
        cd.postedTagged = 0;
        cd.postedUntagged = 0;
        cd.heldTagged = 0;
        cd.heldUntagged = 0;
        cd.rxWant = rxInitial;
        fill(c, cd, core, false);
        if (dynRbuf) {
            fill(c, cd, core, true);
        }
    }

    /**
     * Posts pool buffers of one kind on {@code c} until it has its current want; when the unexpected bound
     * or the core (a full rx queue or CQ) stops it, a later progress call tops up again.
     */
    private void fill(RxmConnection<Endpoint> c, ConnData cd, Endpoint core, boolean tagged) {
        while ((tagged ? cd.postedTagged : cd.postedUntagged) < cd.rxWant
                && (tagged ? cd.postedTagged + cd.heldTagged : cd.postedUntagged + cd.heldUntagged) < rxTarget) {
            if (unexpBuffers >= params.unexpectedLimit()) {
                needTopUp = true;
                return;
            }
            if (!postRx(c, cd, core, tagged)) {
                int posted = tagged ? cd.postedTagged : cd.postedUntagged;
                if (posted > 0) {
                    // the core holds no more (its rx size or CQ): keep what it took instead of retrying on
                    // every progress call
                    cd.rxWant = posted;
                } else {
                    needTopUp = true; // nothing posted: the connection would stall, so retry until it takes one
                }
                return;
            }
        }
    }

    /** Whether small tagged messages travel as core tagged messages (libfabric 1.17's dyn_rbuf). */
    boolean dynRbuf() {
        return dynRbuf;
    }

    private boolean postRx(RxmConnection<Endpoint> c, ConnData cd, Endpoint core, boolean tagged) {
        RxBuf rx = tagged ? rxFreeTagged : rxFree;
        if (rx != null) {
            if (tagged) {
                rxFreeTagged = rx.next;
            } else {
                rxFree = rx.next;
            }
            rx.next = null;
        } else {
            rx = new RxBuf(rxSlabs.next(), rxSlabs.registration(), tagged);
        }
        rx.conn = c;
        rx.cd = cd;
        rx.generation = cd.generation;
        rx.coreEp = core;
        rx.orphan = false;
        int rc = tagged ? core.trecv(rx.mem, rx.mr, 0, 0, -1L, rx) : core.recv(rx.mem, rx.mr, 0, rx);
        if (rc != 0) {
            freeRx(rx);
            return false;
        }
        if (tagged) {
            cd.postedTagged++;
        } else {
            cd.postedUntagged++;
        }
        return true;
    }

    private void freeRx(RxBuf rx) {
        unhold(rx);
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

    /**
     * A buffer kept past its completion (an unexpected message, a rendezvous request being read) counts
     * against its connection's msg_rx_size until it comes back: a slow receiver's peer is held to that many
     * messages, after which the core's flow control pushes back on it.
     */
    private static void hold(RxBuf rx, ConnData cd) {
        rx.held = true;
        if (rx.tagged) {
            cd.heldTagged++;
        } else {
            cd.heldUntagged++;
        }
    }

    private static void unhold(RxBuf rx) {
        if (!rx.held) {
            return;
        }
        rx.held = false;
        ConnData cd = rx.cd;
        if (cd != null && rx.generation == cd.generation) {
            if (rx.tagged) {
                cd.heldTagged--;
            } else {
                cd.heldUntagged--;
            }
        }
    }

    /** Gives a receive buffer back to its connection, or to the pool when the connection is gone or we are over the unexpected bound. */
    private void repost(RxBuf rx) {
        unhold(rx);
        RxmConnection<Endpoint> c = rx.conn;
        ConnData cd = rx.cd;
        Endpoint core = c == null ? null : c.ep();
        if (c == null || core == null || rx.coreEp != core || rx.generation != cd.generation) {
            freeRx(rx);
            return;
        }
        if (unexpBuffers >= params.unexpectedLimit()) {
            freeRx(rx);
            needTopUp = true;
            return;
        }
        if ((rx.tagged ? cd.postedTagged : cd.postedUntagged) >= cd.rxWant) {
            freeRx(rx); // a replacement was posted while this buffer held an unexpected message
            return;
        }
        int rc = rx.tagged ? core.trecv(rx.mem, rx.mr, 0, 0, -1L, rx) : core.recv(rx.mem, rx.mr, 0, rx);
        if (rc != 0) {
            freeRx(rx);
            needTopUp = true;
            return;
        }
        if (rx.tagged) {
            cd.postedTagged++;
        } else {
            cd.postedUntagged++;
        }
    }

    private void topUpReceives() {
        needTopUp = false;
        for (RxmConnection<Endpoint> c : cm.open()) {
            Endpoint core = c.ep();
            ConnData cd = data(c);
            fill(c, cd, core, false);
            if (dynRbuf) {
                fill(c, cd, core, true);
            }
        }
    }

    @Override
    public void connected(RxmConnection<Endpoint> c) {
        ConnData cd = data(c);
        cd.waiting = false;
        cd.everConnected = true;
        cd.connectFailure = 0;
        if (!cd.deferred.isEmpty()) {
            scheduleDeferred(c, cd);
        }
        LOG.log(System.Logger.Level.DEBUG, "connected: {0}", c);
    }

    @Override
    public void closed(RxmConnection<Endpoint> c, int errno) {
        ConnData cd = data(c);
        cd.generation++;
        cd.postedTagged = 0;
        cd.postedUntagged = 0;
        cd.heldTagged = 0;
        cd.heldUntagged = 0;
        LOG.log(System.Logger.Level.DEBUG, "connection closed ({0}): {1}", Errno.name(errno), c);
        boolean report = errno != Errno.ECANCELED;
        if (!cd.everConnected && report) {
            // A connect failed. The operations that got EAGAIN were never accepted, so the failure is reported
            // without an operation context (as libfabric's rxm_cq_write_error_all does), with the peer's
            // address in err_data; the next operation to this peer returns the errno once.
            cd.connectFailure = errno;
            if (txCq != null && cd.waiting) {
                txCq.error(null, OpFlags.SEND | (cd.waitingTagged ? OpFlags.TAGGED : OpFlags.MSG), errno,
                        c.peer().addr().clone());
            }
        }
        cd.waiting = false;
        cd.everConnected = false;
        // transmits in flight or deferred on this connection fail; their buffers become orphans
        for (Object o : cd.deferred) {
            if (o instanceof TxBuf tb) {
                tb.orphan = true;
            }
        }
        cd.deferred.clear();
        if (cd.queuedForDeferred) {
            deferredConns.remove(c);
            cd.queuedForDeferred = false;
        }
        for (TxOp op = cd.inflight; op != null; ) {
            TxOp next = op.next;
            failTx(op, errno);
            op = next;
        }
        cd.inflight = null;
        // receives landing from this connection fail
        for (RecvEntry re = cd.activeRecv; re != null; ) {
            RecvEntry next = re.nextActive;
            re.orphan = true;
            failRecv(re, errno, false);
            re = next;
        }
        cd.activeRecv = null;
        for (RecvEntry re = cd.rndvWait; re != null; ) {
            RecvEntry next = re.nextActive;
            re.orphan = true;
            failRecv(re, errno, false);
            re = next;
        }
        cd.rndvWait = null;
        for (Unexpected u = cd.activeUnexp; u != null; ) {
            Unexpected next = u.nextActive;
            (u.tagged ? trecvQ : recvQ).removeUnexpected(u);
            releaseUnexpected(u);
            u = next;
        }
        cd.activeUnexp = null;
        dropStaleRendezvous(recvQ, cd);
        dropStaleRendezvous(trecvQ, cd);
    }

    /**
     * Unexpected rendezvous requests that came over a connection now gone: their data stays at the sender,
     * whose send failed with the connection and will be sent again, so they can never be received. Dropped
     * here, not matched later: a receive that took one failed with ECONNRESET for a message nobody lost, and
     * a failed receive reposted took the next stale one (a survivor's whole window failed over and over).
     */
    private void dropStaleRendezvous(RecvQueue q, ConnData cd) {
        for (Unexpected u = q.unexpHead; u != null; ) {
            Unexpected next = u.next;
            if (u.cd == cd && u.kind == Unexpected.RNDV && u.generation != cd.generation && u.claimedBy == null) {
                q.removeUnexpected(u);
                releaseUnexpected(u);
            }
            u = next;
        }
    }

    // =========================================================================================
    // progress
    // =========================================================================================

    /** Drives the core CQ, the core EQ and the deferred queues; called by CQ reads under the domain lock. */
    void progress() {
        if (closed || inProgress) {
            return;
        }
        inProgress = true;
        try {
            drainCoreCq(params.cqEqFairness());
            long now = System.nanoTime();
            if (cm.settingUp() > 0 || now - lastCmPoll >= cmIntervalNanos) {
                lastCmPoll = now;
                pollEq();
            }
            if (!deferredConns.isEmpty()) {
                flushDeferred();
            }
            if (needTopUp && unexpBuffers < params.unexpectedLimit()) {
                topUpReceives();
            }
        } finally {
            inProgress = false;
        }
    }

    private static final long REMOTE_WRITE_DATA = OpFlags.REMOTE_WRITE | OpFlags.REMOTE_CQ_DATA;

    /**
     * A peer's fi_writedata landed through a core endpoint: the core reports it with no context of ours, and
     * the application sees it on rxm's receive CQ (as libfabric's rxm_handle_remote_write does). The core
     * completion does not say which connection it came from, so the source is FI_ADDR_NOTAVAIL.
     */
    private void remoteWriteWithData(CqEntry e) {
        if (rxCq != null) {
            rxCq.writeFrom(null, OpFlags.RMA | REMOTE_WRITE_DATA, e.len, 0, e.data, 0, Fabrics.ADDR_NOTAVAIL);
        }
    }

    /** Reads up to {@code max} core completions (and every error completion) and dispatches them. */
    private void drainCoreCq(int max) {
        int reads = 0;
        int n;
        while ((n = coreCq.read(coreEntries, BATCH)) > 0) {
            for (int i = 0; i < n; i++) {
                CqEntry e = coreEntries[i];
                Object ctx = e.context;
                e.context = null;
                if (ctx instanceof CoreCompletion cc) {
                    cc.complete(this, e);
                } else if ((e.flags & REMOTE_WRITE_DATA) == REMOTE_WRITE_DATA) {
                    remoteWriteWithData(e);
                }
            }
            reads += n;
            if (n < BATCH || reads >= max) {
                break;
            }
        }
        if (n == -Errno.EAVAIL) {
            while (coreCq.readError(coreErr, 0) == 1) {
                Object ctx = coreErr.context;
                coreErr.context = null;
                if (ctx instanceof CoreCompletion cc) {
                    cc.fail(this, coreErr);
                }
            }
        }
    }

    /**
     * A core endpoint went down: first take every completion the core queued before it (what the peer sent
     * just before closing is data, not loss, as libfabric's rxm_close_conn flushes the MSG CQ), then fail
     * the connection.
     */
    private void peerGone(Endpoint e, int errno) {
        drainCoreCq(Integer.MAX_VALUE);
        cm.onShutdown(e, errno);
    }

    private void pollEq() {
        while (true) {
            int rc = coreEq.read(eqEntry, 0);
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
                if (coreEq.readError(eqErr, 0) < 0) {
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

    private void scheduleDeferred(RxmConnection<Endpoint> c, ConnData cd) {
        if (!cd.queuedForDeferred) {
            cd.queuedForDeferred = true;
            deferredConns.add(c);
        }
    }

    private void flushDeferred() {
        for (int i = 0; i < deferredConns.size(); ) {
            RxmConnection<Endpoint> c = deferredConns.get(i);
            ConnData cd = data(c);
            if (c.isConnected()) {
                flushDeferred(c, cd);
            }
            if (cd.deferred.isEmpty()) {
                cd.queuedForDeferred = false;
                deferredConns.remove(i);
            } else {
                i++;
            }
        }
    }

    private void flushDeferred(RxmConnection<Endpoint> c, ConnData cd) {
        while (!cd.deferred.isEmpty()) {
            Object o = cd.deferred.peekFirst();
            if (o instanceof TxBuf tb) {
                int rc = postTxBuf(tb);
                if (rc == -Errno.EAGAIN) {
                    return;
                }
                cd.deferred.pollFirst();
                if (rc < 0) {
                    txBufDone(tb, -rc);
                }
            } else if (o instanceof TxOp op) {
                postSegments(op);
                if (op.state != TxOp.ORPHAN && op.error == 0 && op.nextSeg < op.segCount) {
                    return;
                }
                cd.deferred.pollFirst();
            } else if (o instanceof RecvEntry re) {
                issueReads(re);
                if (!re.orphan && re.error == 0 && re.readOffset < readTarget(re)) {
                    return;
                }
                cd.deferred.pollFirst();
            } else {
                cd.deferred.pollFirst();
            }
        }
    }

    // =========================================================================================
    // transmit
    // =========================================================================================

    private TxOp acquireTxOp() {
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

    private void releaseTxOp(TxOp op) {
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

    /** An op whose connection failed: reported, and its pool slot gets a fresh TxOp so late completions are harmless. */
    private void failTx(TxOp op, int errno) {
        closeMrs(op.mrs, op.mrCount);
        op.mrCount = 0;
        if (txCq != null && op.state != TxOp.ORPHAN) {
            txCq.error(op.context, op.cqFlags, 0, 0, errno, op.tag, 0);
            countTx(op, false);
        }
        op.state = TxOp.ORPHAN;
        op.context = null;
        txOps[op.index] = new TxOp(op.index);
        txFree[txFreeTop++] = op.index;
    }

    private TxBuf acquireTxBuf() {
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

    /** A core registration of a bounce buffer when the core needs FI_MR_LOCAL, else null (no desc). */
    private MemoryRegion registerBounce(MemorySegment mem) {
        if (!coreMrLocal) {
            return null;
        }
        MemoryRegion mr = domain.core.registerMemory(mem, Access.SEND | Access.RECV, 0, domain.nextRndvKey(), 0);
        bounceMrs.add(mr);
        return mr;
    }

    private void releaseTxBuf(TxBuf tb) {
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

    private int postTxBuf(TxBuf tb) {
        Endpoint core = tb.conn.ep();
        if (core == null || tb.generation != tb.cd.generation) {
            return -Errno.ECONNRESET;
        }
        return tb.directCount > 0 ? core.sendv(tb.directIov, null, tb.directCount, 0, tb)
                : core.send(tb.pending, tb.mr, 0, tb);
    }

    /** Posts now, or queues behind what is already deferred on the connection; never fails with EAGAIN. */
    private void postOrDefer(TxBuf tb) {
        ConnData cd = tb.cd;
        if (cd.deferred.isEmpty()) {
            int rc = postTxBuf(tb);
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                txBufDone(tb, -rc);
                return;
            }
        }
        cd.deferred.addLast(tb);
        scheduleDeferred(tb.conn, cd);
    }

    private static long length(MemorySegment[] iov, int count) {
        long n = 0;
        for (int i = 0; i < count; i++) {
            n += iov[i].byteSize();
        }
        return n;
    }

    private boolean wantsTxCompletion(long flags) {
        return !txSelective || (flags & OpFlags.COMPLETION) != 0;
    }

    /**
     * rxm_get_conn: 0 when {@code c} is connected; -EAGAIN while connecting (starting a connect from IDLE);
     * the errno of a connect that just failed, once.
     */
    private int connectionReady(RxmConnection<Endpoint> c, ConnData cd, boolean tagged) {
        if (c.state() == ConnState.IDLE && cd.connectFailure != 0) {
            int e = cd.connectFailure;
            cd.connectFailure = 0;
            return -e;
        }
        int rc = cm.ensureConnected(c);
        if (rc == -Errno.EAGAIN) {
            cd.waiting = true;
            cd.waitingTagged = tagged;
            progress();
            if (c.isConnected()) {
                return 0;
            }
            if (c.state() == ConnState.IDLE && cd.connectFailure != 0) {
                int e = cd.connectFailure;
                cd.connectFailure = 0;
                return -e;
            }
        }
        return rc;
    }

    /** rxm_send_common: one send of any protocol. */
    private int sendCommon(boolean tagged, MemorySegment[] iov, MemoryRegion[] desc, int count, long dest, long tag,
                           long data, boolean hasData, Object context, long flags) {
        if (!enabled || closed) {
            return -Errno.EOPBADSTATE;
        }
        if (count < 0 || count > RndvHeader.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        RxmConnection<Endpoint> c = connFor(dest);
        if (c == null) {
            return -Errno.EINVAL;
        }
        ConnData cd = data(c);
        int rc = connectionReady(c, cd, tagged);
        if (rc != 0) {
            return rc;
        }
        if (!cd.deferred.isEmpty()) {
            progress();
            if (!cd.deferred.isEmpty() || !c.isConnected()) {
                return -Errno.EAGAIN;
            }
        }
        long len = length(iov, count);
        boolean inject = (flags & OpFlags.INJECT) != 0;
        if (inject && len > injectSize) {
            return -Errno.EMSGSIZE;
        }
        int proto = selector.select(tagged, len, count);
        TxOp op = acquireTxOp();
        if (op == null) {
            progress();
            return -Errno.EAGAIN;
        }
        op.context = context;
        op.cqFlags = OpFlags.SEND | (tagged ? OpFlags.TAGGED : OpFlags.MSG);
        op.report = !inject && wantsTxCompletion(flags);
        op.op = tagged ? RxmPacket.OP_TAGGED : RxmPacket.OP_MSG;
        op.proto = proto;
        op.tag = tag;
        op.data = data;
        op.pktFlags = hasData ? RxmPacket.FLAG_REMOTE_CQ_DATA : 0;
        op.length = len;
        op.iovCount = count;
        for (int i = 0; i < count; i++) {
            op.iov[i] = iov[i];
            op.desc[i] = desc == null ? null : desc[i];
        }
        op.conn = c;
        op.cd = cd;
        op.generation = cd.generation;
        switch (proto) {
            case ProtocolSelector.RAW_TAGGED -> rc = sendRawTagged(op, c.ep(), inject);
            case ProtocolSelector.EAGER -> rc = sendEager(op, c, cd, inject);
            case ProtocolSelector.SAR -> rc = sendSar(op, c, cd);
            default -> rc = sendRndv(op, c, cd);
        }
        if (rc != 0) {
            if (rc == -Errno.EAGAIN) {
                progress();
            }
            return rc;
        }
        return 0;
    }

    private int sendRawTagged(TxOp op, Endpoint core, boolean inject) {
        boolean hasData = op.pktFlags != 0;
        int rc;
        if (inject) {
            rc = hasData ? core.tinjectdata(op.iov[0], op.data, 0, op.tag) : core.tinject(op.iov[0], 0, op.tag);
            releaseTxOp(op);
            return rc;
        }
        if (op.iovCount == 1 && !hasData) {
            rc = core.tsend(op.iov[0], null, 0, op.tag, op);
        } else if (op.iovCount == 1) {
            rc = core.tsenddata(op.iov[0], null, op.data, 0, op.tag, op);
        } else if (op.iovCount == 0) {
            rc = hasData ? core.tsenddata(MemorySegment.NULL, null, op.data, 0, op.tag, op)
                    : core.tsend(MemorySegment.NULL, null, 0, op.tag, op);
        } else if (!hasData) {
            rc = core.tsendv(op.iov, null, op.iovCount, 0, op.tag, op);
        } else {
            TaggedMsg m = scratchTaggedMsg;
            for (int i = 0; i < op.iovCount; i++) {
                m.iov[i] = op.iov[i];
                m.desc[i] = null;
            }
            m.iovCount = op.iovCount;
            m.addr = 0;
            m.context = op;
            m.data = op.data;
            m.tag = op.tag;
            rc = core.tsendmsg(m, OpFlags.REMOTE_CQ_DATA);
            m.context = null;
        }
        if (rc != 0) {
            releaseTxOp(op);
            return rc;
        }
        op.pending = 1;
        op.cd.link(op);
        return 0;
    }

    private final TaggedMsg scratchTaggedMsg = new TaggedMsg(4);

    private int sendEager(TxOp op, RxmConnection<Endpoint> c, ConnData cd, boolean inject) {
        TxBuf tb = acquireTxBuf();
        RxmPacket.write(tb.hdr, RxmPacket.CTRL_EAGER, c.remoteIndex(), op.index, op.op, op.pktFlags, op.length,
                op.data, op.tag);
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        Endpoint core = c.ep();
        int rc;
        if (inject || !directSend || op.iovCount + 1 > coreIovLimit) {
            long at = 0;
            for (int i = 0; i < op.iovCount; i++) {
                MemorySegment.copy(op.iov[i], 0, tb.payload, at, op.iov[i].byteSize());
                at += op.iov[i].byteSize();
            }
            tb.pending = packet(tb, op.length);
            if (inject && RxmPacket.SIZE + op.length <= coreInjectSize) {
                rc = core.inject(tb.pending, 0);
                releaseTxBuf(tb);
                releaseTxOp(op);
                return rc;
            }
            rc = core.send(tb.pending, tb.mr, 0, tb);
        } else {
            tb.directIov[0] = tb.hdr;
            for (int i = 0; i < op.iovCount; i++) {
                tb.directIov[i + 1] = op.iov[i];
            }
            tb.directCount = op.iovCount + 1;
            rc = core.sendv(tb.directIov, null, tb.directCount, 0, tb);
        }
        if (rc != 0) {
            releaseTxBuf(tb);
            releaseTxOp(op);
            return rc;
        }
        tb.op = op;
        op.pending = 1;
        cd.link(op);
        return 0;
    }

    private int sendSar(TxOp op, RxmConnection<Endpoint> c, ConnData cd) {
        op.segCount = selector.segments(op.length);
        op.nextSeg = 0;
        postSegments(op);
        if (op.nextSeg == 0) {
            releaseTxOp(op);
            return -Errno.EAGAIN;
        }
        cd.link(op);
        if (op.nextSeg < op.segCount) {
            cd.deferred.addLast(op);
            scheduleDeferred(c, cd);
        }
        return 0;
    }

    /** Builds and posts SAR segments from {@code op.nextSeg} until done or the core says EAGAIN. */
    private void postSegments(TxOp op) {
        RxmConnection<Endpoint> c = op.conn;
        Endpoint core = c.ep();
        if (op.state == TxOp.ORPHAN || core == null || op.generation != op.cd.generation) {
            return;
        }
        while (op.nextSeg < op.segCount) {
            long offset = op.nextSeg * bufferSize;
            long segLen = Math.min(bufferSize, op.length - offset);
            int segType = op.nextSeg == 0 ? RxmPacket.SEG_FIRST
                    : op.nextSeg == op.segCount - 1 ? RxmPacket.SEG_LAST : RxmPacket.SEG_MIDDLE;
            TxBuf tb = acquireTxBuf();
            RxmPacket.write(tb.hdr, RxmPacket.CTRL_SEG, c.remoteIndex(), op.index, op.op, op.pktFlags, op.length,
                    op.data, op.tag);
            RxmPacket.setSegment(tb.hdr, (int) segLen, (int) op.nextSeg, segType, offset);
            copyOut(op, offset, tb.payload, segLen);
            tb.pending = packet(tb, segLen);
            tb.conn = c;
            tb.cd = op.cd;
            tb.generation = op.generation;
            int rc = core.send(tb.pending, tb.mr, 0, tb);
            if (rc != 0) {
                releaseTxBuf(tb);
                if (rc != -Errno.EAGAIN) {
                    op.error = -rc;
                    if (op.pending == 0 && op.nextSeg > 0) {
                        finishTx(op);
                    }
                }
                return;
            }
            tb.op = op;
            op.pending++;
            op.nextSeg++;
        }
    }

    private static MemorySegment packet(TxBuf tb, long payloadLen) {
        return tb.packet(payloadLen);
    }

    /** Copies {@code len} bytes of the op's payload starting at {@code offset} into {@code dst}. */
    private static void copyOut(TxOp op, long offset, MemorySegment dst, long len) {
        long skip = offset;
        long done = 0;
        for (int i = 0; i < op.iovCount && done < len; i++) {
            long size = op.iov[i].byteSize();
            if (skip >= size) {
                skip -= size;
                continue;
            }
            long n = Math.min(size - skip, len - done);
            MemorySegment.copy(op.iov[i], skip, dst, done, n);
            done += n;
            skip = 0;
        }
    }

    private int sendRndv(TxOp op, RxmConnection<Endpoint> c, ConnData cd) {
        try {
            for (int i = 0; i < op.iovCount; i++) {
                long access = rndvWrite ? Access.WRITE : Access.REMOTE_READ;
                op.mrs[i] = domain.core.registerMemory(op.iov[i], access, 0, domain.nextRndvKey(), 0);
                op.mrCount = i + 1;
            }
        } catch (FabricException e) {
            closeMrs(op.mrs, op.mrCount);
            releaseTxOp(op);
            return -e.errno();
        }
        TxBuf tb = acquireTxBuf();
        RxmPacket.write(tb.hdr, RxmPacket.CTRL_RNDV_REQ, c.remoteIndex(), op.index, op.op, op.pktFlags, op.length,
                op.data, op.tag);
        MemorySegment h = tb.payload;
        for (int i = 0; i < op.iovCount; i++) {
            RndvHeader.setIov(h, i, coreVirtAddr ? op.iov[i].address() : 0, op.iov[i].byteSize(), op.mrs[i].key());
        }
        RndvHeader.setCount(h, op.iovCount);
        tb.pending = tb.rndvPkt;
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        int rc = c.ep().send(tb.pending, tb.mr, 0, tb);
        if (rc != 0) {
            releaseTxBuf(tb);
            closeMrs(op.mrs, op.mrCount);
            op.mrCount = 0;
            releaseTxOp(op);
            return rc;
        }
        tb.op = op;
        // the request's send completion, plus rd_done (read) or wr_data (write) from the receiver
        op.pending = 2;
        op.state = rndvWrite ? TxOp.WAIT_WR_DATA : TxOp.WAIT_RD_DONE;
        cd.link(op);
        return 0;
    }

    private static void closeMrs(MemoryRegion[] mrs, int n) {
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

    /** A core completion of one of the op's own posts (headerless tagged send, RMA, rendezvous write). */
    void txOpCoreDone(TxOp op, int err) {
        if (op.state == TxOp.ORPHAN || op.state == TxOp.FREE) {
            return;
        }
        opStep(op, err);
    }

    /** A core completion of a transmit buffer. */
    void txBufDone(TxBuf tb, int err) {
        if (tb.orphan) {
            return;
        }
        TxOp op = tb.op;
        releaseTxBuf(tb);
        if (op == null || op.state == TxOp.ORPHAN || op.state == TxOp.FREE) {
            return;
        }
        opStep(op, err);
    }

    private void opStep(TxOp op, int err) {
        op.pending--;
        if (err != 0 && op.error == 0) {
            op.error = err;
        }
        if (op.pending > 0) {
            return;
        }
        if (op.proto == ProtocolSelector.SAR && op.nextSeg < op.segCount && op.error == 0) {
            return;
        }
        if (op.state == TxOp.WRITING && op.error == 0) {
            sendCtrl(op.conn, op.cd, RxmPacket.CTRL_RNDV_WR_DONE, op.index);
        }
        if (op.error != 0 && op.proto == ProtocolSelector.SAR) {
            op.cd.deferred.remove(op);
        }
        finishTx(op);
    }

    private void finishTx(TxOp op) {
        op.cd.unlink(op);
        closeMrs(op.mrs, op.mrCount);
        op.mrCount = 0;
        if (op.error != 0) {
            txCq.error(op.context, op.cqFlags, 0, 0, op.error, op.tag, 0);
        } else if (op.report) {
            txCq.writeFrom(op.context, op.cqFlags, 0, 0, 0, 0, Fabrics.ADDR_NOTAVAIL);
        }
        countTx(op, op.error == 0);
        releaseTxOp(op);
    }

    private void sendCtrl(RxmConnection<Endpoint> c, ConnData cd, int type, long msgId) {
        TxBuf tb = acquireTxBuf();
        RxmPacket.write(tb.hdr, type, c.remoteIndex(), msgId, 0, 0, 0, 0, 0);
        tb.pending = tb.hdr;
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        postOrDefer(tb);
    }

    // ---- RMA ------------------------------------------------------------------------------------

    private int rmaCommon(boolean write, MemorySegment[] iov, MemoryRegion[] desc, int count, long peer,
                          RmaMsg msg, long addr, long key, long data, boolean hasData, Object context, long flags) {
        if (!enabled || closed) {
            return -Errno.EOPBADSTATE;
        }
        RxmConnection<Endpoint> c = connFor(peer);
        if (c == null) {
            return -Errno.EINVAL;
        }
        ConnData cd = data(c);
        int rc = connectionReady(c, cd, false);
        if (rc != 0) {
            return rc;
        }
        TxOp op = acquireTxOp();
        if (op == null) {
            progress();
            return -Errno.EAGAIN;
        }
        op.context = context;
        op.cqFlags = OpFlags.RMA | (write ? OpFlags.WRITE : OpFlags.READ);
        op.report = (flags & OpFlags.INJECT) == 0 && wantsTxCompletion(flags);
        op.proto = -1;
        op.conn = c;
        op.cd = cd;
        op.generation = cd.generation;
        op.iovCount = 0;
        Endpoint core = c.ep();
        if (msg != null) {
            long saved = msg.addr;
            Object savedCtx = msg.context;
            msg.addr = 0;
            msg.context = op;
            rc = write ? core.writemsg(msg, flags) : core.readmsg(msg, flags);
            msg.addr = saved;
            msg.context = savedCtx;
        } else if (write && (flags & OpFlags.INJECT) != 0) {
            rc = hasData ? core.injectWritedata(iov[0], data, 0, addr, key) : core.injectWrite(iov[0], 0, addr, key);
            releaseTxOp(op);
            return rc;
        } else if (write) {
            if (hasData) {
                rc = core.writedata(iov[0], desc == null ? null : desc[0], data, 0, addr, key, op);
            } else if (count == 1) {
                rc = core.write(iov[0], desc == null ? null : desc[0], 0, addr, key, op);
            } else {
                rc = core.writev(iov, desc, count, 0, addr, key, op);
            }
        } else {
            rc = count == 1 ? core.read(iov[0], desc == null ? null : desc[0], 0, addr, key, op)
                    : core.readv(iov, desc, count, 0, addr, key, op);
        }
        if (rc != 0) {
            releaseTxOp(op);
            if (rc == -Errno.EAGAIN) {
                progress();
            }
            return rc;
        }
        op.pending = 1;
        cd.link(op);
        return 0;
    }

    // =========================================================================================
    // receive
    // =========================================================================================

    private RecvEntry acquireRecv() {
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

    private void releaseRecv(RecvEntry e) {
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

    private Unexpected acquireUnexpected() {
        Unexpected u = unexpFree;
        if (u != null) {
            unexpFree = u.next;
            u.next = null;
        } else {
            u = new Unexpected();
        }
        return u;
    }

    /** Returns the message's buffers to their connections and the entry to the pool. */
    private void releaseUnexpected(Unexpected u) {
        RxBuf first = u.first;
        RxBuf seg = u.segHead;
        unexpBuffers -= u.buffers;
        u.clear();
        u.next = unexpFree;
        unexpFree = u;
        if (first != null) {
            repost(first);
        }
        while (seg != null) {
            RxBuf n = seg.next;
            seg.next = null;
            repost(seg);
            seg = n;
        }
    }

    private int recvCommon(boolean tagged, MemorySegment[] iov, MemoryRegion[] desc, int count, long src, long tag,
                           long ignore, Object context, long flags) {
        if (!enabled || closed) {
            return -Errno.EOPBADSTATE;
        }
        if (count < 0 || count > RndvHeader.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        boolean multi = (flags & OpFlags.MULTI_RECV) != 0;
        if (multi && (tagged || count != 1)) {
            return -Errno.EINVAL;
        }
        long filter = (caps & Caps.DIRECTED_RECV) != 0 ? src : Fabrics.ADDR_UNSPEC;
        RecvEntry e = acquireRecv();
        for (int i = 0; i < count; i++) {
            e.iov[i] = iov[i];
            e.desc[i] = desc == null ? null : desc[i];
        }
        e.count = count;
        e.capacity = length(iov, count);
        e.srcAddr = filter;
        e.tag = tag;
        e.ignore = tagged ? ignore : 0;
        e.context = context;
        e.opFlags = flags;
        e.tagged = tagged;
        e.multi = multi;
        RecvQueue q = tagged ? trecvQ : recvQ;
        // no progress here (libfabric's rxm makes none either): a message still in the core is matched when the
        // next CQ read lands it, in order, and a progress pass per receive was a system call on the critical
        // path of every request-reply
        while (true) {
            Unexpected u = q.findUnexpected(filter, tag, e.ignore);
            if (u == null) {
                break;
            }
            q.removeUnexpected(u);
            RecvEntry target = multi ? carve(q, e, u.size, false) : e;
            deliverUnexpected(target, u);
            if (!multi || e.iov[0] == null) {
                return 0;
            }
            if (e.capacity - e.multiUsed < minMultiRecv) {
                return 0;
            }
        }
        q.post(e);
        return 0;
    }

    /**
     * Takes a posted receive for a message of {@code size} bytes: the entry itself, or for FI_MULTI_RECV a
     * slice of its buffer (the buffer leaves the queue once less than FI_OPT_MIN_MULTI_RECV is left).
     */
    private RecvEntry takePosted(RecvQueue q, RecvEntry e, long size) {
        if (!e.multi) {
            q.remove(e);
            return e;
        }
        return carve(q, e, size, true);
    }

    private RecvEntry carve(RecvQueue q, RecvEntry parent, long size, boolean queued) {
        long left = parent.capacity - parent.multiUsed;
        long take = Math.min(size, left);
        RecvEntry child = acquireRecv();
        child.iov[0] = parent.iov[0].asSlice(parent.multiUsed, take);
        child.count = 1;
        child.capacity = take;
        child.context = parent.context;
        child.opFlags = parent.opFlags;
        child.tagged = false;
        child.parent = parent;
        parent.multiUsed += take;
        if (parent.capacity - parent.multiUsed < minMultiRecv) {
            child.releasesParent = true;
            if (queued) {
                q.remove(parent);
            }
            parent.iov[0] = null;
        }
        return child;
    }

    private boolean wantsRxCompletion(RecvEntry e) {
        return !rxSelective || (e.opFlags & OpFlags.COMPLETION) != 0 || e.releasesParent;
    }

    /** Writes the receive's completion (ETRUNC error when the message did not fit) and frees it. */
    private void completeRecv(RecvEntry e, long msgSize, long copied, long tag, long data, boolean hasData,
                              long src) {
        long flags = OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG)
                | (hasData ? OpFlags.REMOTE_CQ_DATA : 0) | (e.releasesParent ? OpFlags.MULTI_RECV : 0);
        long buf = e.parent != null ? e.iov[0].address() : 0;
        if (copied < msgSize) {
            rxCq.error(e.context, flags, copied, msgSize - copied, Errno.ETRUNC, tag, data);
        } else if (wantsRxCompletion(e)) {
            rxCq.writeFrom(e.context, flags, copied, buf, data, tag, src);
        }
        count(rxCntr, copied >= msgSize);
        RecvEntry parent = e.releasesParent ? e.parent : null;
        releaseRecv(e);
        if (parent != null) {
            releaseRecv(parent);
        }
    }

    private void failRecv(RecvEntry e, int errno, boolean release) {
        closeMrs(e.mrs, e.mrCount);
        e.mrCount = 0;
        if (e.rndvReq != null) {
            RxBuf rx = e.rndvReq;
            e.rndvReq = null;
            repost(rx);
        }
        long flags = OpFlags.RECV | (e.tagged ? OpFlags.TAGGED : OpFlags.MSG)
                | (e.releasesParent ? OpFlags.MULTI_RECV : 0);
        rxCq.error(e.context, flags, 0, 0, errno, e.msgTag, 0);
        count(rxCntr, false);
        if (release) {
            releaseRecv(e);
        }
    }

    /** A core receive completed into {@code rx}. */
    void received(RxBuf rx) {
        if (rx.orphan) {
            return;
        }
        RxmConnection<Endpoint> c = rx.conn;
        ConnData cd = rx.cd;
        if (c == null || rx.generation != cd.generation || rx.coreEp != c.ep()) {
            rx.orphan = true;
            return;
        }
        if ((rx.tagged ? --cd.postedTagged : --cd.postedUntagged) == 0 && cd.rxWant < rxTarget) {
            cd.rxWant = Math.min(rxTarget, cd.rxWant * 2); // the peer sends faster than we repost: post more
        }
        if ((rx.coreFlags & OpFlags.REMOTE_WRITE) != 0) {
            // a core that delivers remote CQ data into a posted receive (verbs, FI_RX_CQ_DATA): the peer's
            // writedata consumed this buffer without filling it; report the data and put the buffer back
            if ((rx.coreFlags & OpFlags.REMOTE_CQ_DATA) != 0 && rxCq != null) {
                rxCq.writeFrom(null, OpFlags.RMA | OpFlags.REMOTE_WRITE | OpFlags.REMOTE_CQ_DATA, 0, 0,
                        rx.coreData, 0, Fabrics.ADDR_NOTAVAIL);
            }
            repost(rx);
            return;
        }
        boolean keep;
        if (rx.tagged || (rx.coreFlags & OpFlags.TAGGED) != 0) {
            // libfabric 1.13-1.17 dyn_rbuf: a core tagged message without rxm's header is an eager tagged send
            keep = onEager(rx, c, cd, 0, rx.len, rx.len, true, rx.coreTag, rx.coreData,
                    (rx.coreFlags & OpFlags.REMOTE_CQ_DATA) != 0, Unexpected.EAGER);
        } else {
            MemorySegment p = rx.mem;
            if (rx.len < RxmPacket.SIZE || RxmPacket.ctrlVersion(p) != 4 || RxmPacket.opVersion(p) != 2) {
                protocolError(c, "a " + rx.len + "-byte message that is not an rxm packet (ctrl version "
                        + (rx.len > 0 ? RxmPacket.ctrlVersion(p) : -1) + ")");
                freeRx(rx);
                return;
            }
            keep = switch (RxmPacket.ctrlType(p)) {
                case RxmPacket.CTRL_EAGER -> {
                    long size = RxmPacket.size(p);
                    long have = rx.len - RxmPacket.SIZE;
                    if (size != have) {
                        protocolError(c, "an eager packet announcing " + size + " bytes but carrying " + have);
                        yield false;
                    }
                    yield onEager(rx, c, cd, RxmPacket.SIZE, have, size, RxmPacket.op(p) == RxmPacket.OP_TAGGED,
                            RxmPacket.tag(p), RxmPacket.data(p),
                            (RxmPacket.flags(p) & RxmPacket.FLAG_REMOTE_CQ_DATA) != 0, Unexpected.EAGER);
                }
                case RxmPacket.CTRL_SEG -> onSegment(rx, c, cd);
                case RxmPacket.CTRL_RNDV_REQ -> {
                    if (rx.len < RxmPacket.SIZE + RndvHeader.SIZE
                            || RndvHeader.totalLength(rx.rndvHeader()) < 0) {
                        protocolError(c, "a malformed rendezvous request");
                        yield false;
                    }
                    yield onEager(rx, c, cd, RxmPacket.SIZE, 0, RxmPacket.size(p),
                            RxmPacket.op(p) == RxmPacket.OP_TAGGED, RxmPacket.tag(p), RxmPacket.data(p),
                            (RxmPacket.flags(p) & RxmPacket.FLAG_REMOTE_CQ_DATA) != 0, Unexpected.RNDV);
                }
                case RxmPacket.CTRL_RNDV_RD_DONE -> {
                    onRdDone(c, RxmPacket.msgId(p));
                    yield false;
                }
                case RxmPacket.CTRL_RNDV_WR_DATA -> {
                    onWrData(rx, c);
                    yield false;
                }
                case RxmPacket.CTRL_RNDV_WR_DONE -> {
                    onWrDone(cd, RxmPacket.msgId(p));
                    yield false;
                }
                case RxmPacket.CTRL_CREDIT -> false;
                default -> {
                    LOG.log(System.Logger.Level.WARNING, "dropping unsupported rxm packet {0} from {1}",
                            RxmPacket.ctrlTypeName(RxmPacket.ctrlType(p)), c.peer());
                    yield false;
                }
            };
            if (c.ep() == null) {
                // a protocol error closed the connection
                freeRx(rx);
                return;
            }
        }
        boolean tagged = rx.tagged;
        Endpoint core = rx.coreEp;
        if (!keep) {
            repost(rx);
        } else {
            hold(rx, cd);
        }
        if (c.ep() == core) {
            fill(c, cd, core, tagged); // a buffer kept for an unexpected message is replaced
        }
    }

    /** A posted core receive failed (its endpoint was closed or broke): the buffer is dropped. */
    void receiveFailed(RxBuf rx, int err) {
        rx.orphan = true;
    }

    private void protocolError(RxmConnection<Endpoint> c, String what) {
        LOG.log(System.Logger.Level.WARNING, "closing the connection to {0}: it sent {1}", c.peer(), what);
        Endpoint e = c.ep();
        if (e != null) {
            cm.onShutdown(e, Errno.ECONNABORTED);
        }
    }

    /**
     * An eager message or the first packet of a rendezvous: matched against posted receives, else queued as
     * unexpected (keeping its buffer). Returns whether the buffer is kept.
     */
    private boolean onEager(RxBuf rx, RxmConnection<Endpoint> c, ConnData cd, long off, long len, long size,
                            boolean tagged, long tag, long data, boolean hasData, int kind) {
        RecvQueue q = tagged ? trecvQ : recvQ;
        long src = srcOf(c);
        RecvEntry e = q.findPosted(src, tag);
        if (e != null) {
            RecvEntry t = takePosted(q, e, size);
            if (kind == Unexpected.RNDV) {
                t.msgTag = tag;
                t.msgData = data;
                t.msgHasData = hasData;
                t.msgSrc = src;
                t.tagged = tagged;
                startRndv(t, rx, c, cd);
                return true;
            }
            long n = t.copyIn(rx.mem, off, 0, Math.min(len, t.capacity));
            completeRecv(t, size, n, tag, data, hasData, src);
            return false;
        }
        Unexpected u = acquireUnexpected();
        u.kind = kind;
        u.first = rx;
        u.offset = off;
        u.firstLen = len;
        u.size = size;
        u.tagged = tagged;
        u.tag = tag;
        u.data = data;
        u.hasData = hasData;
        u.src = src;
        u.conn = c;
        u.cd = cd;
        u.generation = cd.generation;
        u.complete = kind != Unexpected.SAR;
        u.buffers = 1;
        unexpBuffers++;
        q.addUnexpected(u);
        return true;
    }

    private boolean onSegment(RxBuf rx, RxmConnection<Endpoint> c, ConnData cd) {
        MemorySegment p = rx.mem;
        long msgId = RxmPacket.msgId(p);
        int segType = RxmPacket.segType(p);
        long segLen = Math.min(RxmPacket.segSize(p), rx.len - RxmPacket.SIZE);
        if (segType == RxmPacket.SEG_FIRST) {
            boolean tagged = RxmPacket.op(p) == RxmPacket.OP_TAGGED;
            long tag = RxmPacket.tag(p);
            long data = RxmPacket.data(p);
            boolean hasData = (RxmPacket.flags(p) & RxmPacket.FLAG_REMOTE_CQ_DATA) != 0;
            long size = RxmPacket.size(p);
            RecvQueue q = tagged ? trecvQ : recvQ;
            long src = srcOf(c);
            RecvEntry e = q.findPosted(src, tag);
            if (e != null) {
                RecvEntry t = takePosted(q, e, size);
                beginSar(t, c, cd, msgId, size, tagged, tag, data, hasData, src);
                t.copyIn(p, RxmPacket.SIZE, 0, Math.min(segLen, t.capacity));
                t.received = segLen;
                return false;
            }
            onEager(rx, c, cd, RxmPacket.SIZE, segLen, size, tagged, tag, data, hasData, Unexpected.SAR);
            Unexpected u = q.unexpTail;
            u.msgId = msgId;
            u.nextActive = cd.activeUnexp;
            cd.activeUnexp = u;
            return true;
        }
        boolean last = segType == RxmPacket.SEG_LAST;
        RecvEntry prevE = null;
        for (RecvEntry t = cd.activeRecv; t != null; prevE = t, t = t.nextActive) {
            if (t.msgId == msgId && t.rndvReq == null) {
                if (t.received < t.capacity) {
                    t.copyIn(p, RxmPacket.SIZE, t.received, Math.min(segLen, t.capacity - t.received));
                }
                t.received += segLen;
                if (last) {
                    if (prevE == null) {
                        cd.activeRecv = t.nextActive;
                    } else {
                        prevE.nextActive = t.nextActive;
                    }
                    completeRecv(t, t.msgSize, Math.min(t.received, t.capacity), t.msgTag, t.msgData, t.msgHasData,
                            t.msgSrc);
                }
                return false;
            }
        }
        Unexpected prevU = null;
        for (Unexpected u = cd.activeUnexp; u != null; prevU = u, u = u.nextActive) {
            if (u.msgId == msgId) {
                rx.next = null;
                if (u.segTail == null) {
                    u.segHead = rx;
                } else {
                    u.segTail.next = rx;
                }
                u.segTail = rx;
                u.buffers++;
                unexpBuffers++;
                if (last) {
                    u.complete = true;
                    if (prevU == null) {
                        cd.activeUnexp = u.nextActive;
                    } else {
                        prevU.nextActive = u.nextActive;
                    }
                    u.nextActive = null;
                }
                return true;
            }
        }
        LOG.log(System.Logger.Level.WARNING, "dropping a SAR segment of unknown message {0} from {1}", msgId,
                c.peer());
        return false;
    }

    private void beginSar(RecvEntry t, RxmConnection<Endpoint> c, ConnData cd, long msgId, long size,
                          boolean tagged, long tag, long data, boolean hasData, long src) {
        t.msgId = msgId;
        t.msgSize = size;
        t.msgTag = tag;
        t.msgData = data;
        t.msgHasData = hasData;
        t.msgSrc = src;
        t.tagged = tagged;
        t.conn = c;
        t.cd = cd;
        t.generation = cd.generation;
        t.nextActive = cd.activeRecv;
        cd.activeRecv = t;
    }

    /** A receive meets a message that arrived first. */
    private void deliverUnexpected(RecvEntry t, Unexpected u) {
        t.tagged = u.tagged;
        switch (u.kind) {
            case Unexpected.EAGER -> {
                long n = t.copyIn(u.first.mem, u.offset, 0, Math.min(u.firstLen, t.capacity));
                completeRecv(t, u.size, n, u.tag, u.data, u.hasData, u.src);
                releaseUnexpected(u);
            }
            case Unexpected.SAR -> {
                long at = 0;
                at += copyPart(t, u.first.mem, u.offset, at, u.firstLen);
                for (RxBuf s = u.segHead; s != null; s = s.next) {
                    long segLen = Math.min(RxmPacket.segSize(s.mem), s.len - RxmPacket.SIZE);
                    at += copyPart(t, s.mem, RxmPacket.SIZE, at, segLen);
                }
                if (u.complete) {
                    completeRecv(t, u.size, Math.min(at, t.capacity), u.tag, u.data, u.hasData, u.src);
                    releaseUnexpected(u);
                } else if (u.generation != u.cd.generation) {
                    t.msgTag = u.tag;
                    failRecv(t, Errno.ECONNRESET, true);
                    releaseUnexpected(u);
                } else {
                    ConnData cd = u.cd;
                    unlinkActive(cd, u);
                    beginSar(t, u.conn, cd, u.msgId, u.size, u.tagged, u.tag, u.data, u.hasData, u.src);
                    t.received = at;
                    releaseUnexpected(u);
                }
            }
            default -> {
                t.msgTag = u.tag;
                t.msgData = u.data;
                t.msgHasData = u.hasData;
                t.msgSrc = u.src;
                if (u.generation != u.cd.generation || u.conn.ep() == null) {
                    failRecv(t, Errno.ECONNRESET, true);
                    releaseUnexpected(u);
                    return;
                }
                RxBuf rx = u.first;
                u.first = null;
                RxmConnection<Endpoint> c = u.conn;
                ConnData cd = u.cd;
                releaseUnexpected(u); // counts the buffer out of the unexpected bound; rx now belongs to t
                startRndv(t, rx, c, cd);
            }
        }
    }

    private static long copyPart(RecvEntry t, MemorySegment src, long srcOff, long at, long len) {
        if (at < t.capacity) {
            t.copyIn(src, srcOff, at, Math.min(len, t.capacity - at));
        }
        return len;
    }

    private static void unlinkActive(ConnData cd, Unexpected u) {
        Unexpected prev = null;
        for (Unexpected x = cd.activeUnexp; x != null; prev = x, x = x.nextActive) {
            if (x == u) {
                if (prev == null) {
                    cd.activeUnexp = x.nextActive;
                } else {
                    prev.nextActive = x.nextActive;
                }
                u.nextActive = null;
                return;
            }
        }
    }

    // ---- rendezvous (receiver) -------------------------------------------------------------------

    private static long readTarget(RecvEntry t) {
        return Math.min(t.msgSize, t.capacity);
    }

    private void startRndv(RecvEntry t, RxBuf rx, RxmConnection<Endpoint> c, ConnData cd) {
        MemorySegment p = rx.mem;
        t.rndvReq = rx;
        t.msgId = RxmPacket.msgId(p);
        t.msgSize = RxmPacket.size(p);
        t.conn = c;
        t.cd = cd;
        t.generation = cd.generation;
        t.readIov = 0;
        t.readOffset = 0;
        t.pendingReads = 0;
        if (rndvWrite) {
            startRndvWrite(t, c, cd);
            return;
        }
        t.nextActive = cd.activeRecv;
        cd.activeRecv = t;
        issueReads(t);
        if (t.error != 0 && t.pendingReads == 0) {
            finishRndvRecv(t);
        } else if (t.readOffset < readTarget(t)) {
            cd.deferred.addLast(t);
            scheduleDeferred(c, cd);
        } else if (t.pendingReads == 0) {
            finishRndvRecv(t);
        }
    }

    /** Posts RMA reads of the sender's buffers into the receive's buffers, from {@code readOffset} on. */
    private void issueReads(RecvEntry t) {
        if (t.orphan || t.error != 0) {
            return;
        }
        Endpoint core = t.conn.ep();
        if (core == null || t.generation != t.cd.generation) {
            t.error = Errno.ECONNRESET;
            return;
        }
        MemorySegment h = t.rndvReq.rndvHeader();
        int remoteCount = RndvHeader.count(h);
        long target = readTarget(t);
        while (t.readOffset < target) {
            // locate the remote iov and the local iov holding message offset readOffset
            long off = t.readOffset;
            int ri = 0;
            long rskip = off;
            while (ri < remoteCount && rskip >= RndvHeader.len(h, ri)) {
                rskip -= RndvHeader.len(h, ri);
                ri++;
            }
            int li = 0;
            long lskip = off;
            while (li < t.count && lskip >= t.iov[li].byteSize()) {
                lskip -= t.iov[li].byteSize();
                li++;
            }
            if (ri >= remoteCount || li >= t.count) {
                t.error = Errno.EIO;
                return;
            }
            long n = Math.min(Math.min(RndvHeader.len(h, ri) - rskip, t.iov[li].byteSize() - lskip), target - off);
            MemorySegment dst = lskip == 0 && n == t.iov[li].byteSize() ? t.iov[li] : t.iov[li].asSlice(lskip, n);
            int rc = core.read(dst, t.desc[li], 0, RndvHeader.addr(h, ri) + rskip, RndvHeader.key(h, ri), t);
            if (rc == -Errno.EAGAIN) {
                return;
            }
            if (rc != 0) {
                t.error = -rc;
                return;
            }
            t.pendingReads++;
            t.readOffset += n;
        }
    }

    /** A core read of a rendezvous completed. */
    void rndvReadDone(RecvEntry t, int err) {
        if (t.orphan) {
            return;
        }
        t.pendingReads--;
        if (err != 0 && t.error == 0) {
            t.error = err;
        }
        if (t.pendingReads == 0 && (t.readOffset >= readTarget(t) || t.error != 0)) {
            finishRndvRecv(t);
        }
    }

    private void finishRndvRecv(RecvEntry t) {
        ConnData cd = t.cd;
        RecvEntry prev = null;
        for (RecvEntry x = cd.activeRecv; x != null; prev = x, x = x.nextActive) {
            if (x == t) {
                if (prev == null) {
                    cd.activeRecv = x.nextActive;
                } else {
                    prev.nextActive = x.nextActive;
                }
                break;
            }
        }
        if (t.error == 0 || t.error == Errno.ETRUNC) {
            // tell the sender its buffer is free, even when we took less than it sent
            sendCtrl(t.conn, cd, RxmPacket.CTRL_RNDV_RD_DONE, t.msgId);
        }
        if (t.error != 0) {
            failRecv(t, t.error, true);
            return;
        }
        RxBuf rx = t.rndvReq;
        t.rndvReq = null;
        repost(rx);
        completeRecv(t, t.msgSize, readTarget(t), t.msgTag, t.msgData, t.msgHasData, t.msgSrc);
    }

    private void startRndvWrite(RecvEntry t, RxmConnection<Endpoint> c, ConnData cd) {
        long target = readTarget(t);
        TxBuf tb = acquireTxBuf();
        RxmPacket.write(tb.hdr, RxmPacket.CTRL_RNDV_WR_DATA, c.remoteIndex(), t.msgId, 0, 0, 0, 0, 0);
        MemorySegment h = tb.payload;
        long left = target;
        int n = 0;
        try {
            for (int i = 0; i < t.count && left > 0; i++) {
                long len = Math.min(left, t.iov[i].byteSize());
                MemorySegment seg = t.iov[i].asSlice(0, len);
                t.mrs[i] = domain.core.registerMemory(seg, Access.REMOTE_WRITE, 0, domain.nextRndvKey(), 0);
                t.mrCount = i + 1;
                RndvHeader.setIov(h, n++, coreVirtAddr ? seg.address() : 0, len, t.mrs[i].key());
                left -= len;
            }
        } catch (FabricException e) {
            releaseTxBuf(tb);
            t.error = e.errno();
            failRecv(t, t.error, true);
            return;
        }
        RndvHeader.setCount(h, n);
        tb.pending = tb.rndvPkt;
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        t.waitingWrDone = true;
        t.nextActive = cd.rndvWait;
        cd.rndvWait = t;
        postOrDefer(tb);
    }

    private void onWrDone(ConnData cd, long msgId) {
        RecvEntry prev = null;
        for (RecvEntry t = cd.rndvWait; t != null; prev = t, t = t.nextActive) {
            if (t.msgId == msgId) {
                if (prev == null) {
                    cd.rndvWait = t.nextActive;
                } else {
                    prev.nextActive = t.nextActive;
                }
                closeMrs(t.mrs, t.mrCount);
                t.mrCount = 0;
                RxBuf rx = t.rndvReq;
                t.rndvReq = null;
                repost(rx);
                completeRecv(t, t.msgSize, readTarget(t), t.msgTag, t.msgData, t.msgHasData, t.msgSrc);
                return;
            }
        }
        LOG.log(System.Logger.Level.WARNING, "rndv_wr_done for unknown message {0}", msgId);
    }

    // ---- rendezvous (sender) ---------------------------------------------------------------------

    private void onRdDone(RxmConnection<Endpoint> c, long msgId) {
        if (msgId < 0 || msgId >= txOps.length) {
            protocolError(c, "rndv_rd_done for message " + msgId + " which was never sent");
            return;
        }
        TxOp op = txOps[(int) msgId];
        if (op.state != TxOp.WAIT_RD_DONE || op.conn != c) {
            LOG.log(System.Logger.Level.WARNING, "ignoring rndv_rd_done for message {0} from {1}", msgId, c.peer());
            return;
        }
        op.state = TxOp.ACTIVE;
        opStep(op, 0);
    }

    private void onWrData(RxBuf rx, RxmConnection<Endpoint> c) {
        long msgId = RxmPacket.msgId(rx.mem);
        if (msgId < 0 || msgId >= txOps.length || txOps[(int) msgId].state != TxOp.WAIT_WR_DATA
                || txOps[(int) msgId].conn != c || rx.len < RxmPacket.SIZE + RndvHeader.SIZE) {
            protocolError(c, "rndv_wr_data for message " + msgId + " which is not waiting for it");
            return;
        }
        TxOp op = txOps[(int) msgId];
        MemorySegment h = rx.rndvHeader();
        int rc = RndvHeader.count(h);
        long target = Math.min(op.length, Math.max(0, RndvHeader.totalLength(h)));
        op.state = TxOp.WRITING;
        Endpoint core = c.ep();
        long off = 0;
        while (off < target) {
            int ri = 0;
            long rskip = off;
            while (ri < rc && rskip >= RndvHeader.len(h, ri)) {
                rskip -= RndvHeader.len(h, ri);
                ri++;
            }
            int li = 0;
            long lskip = off;
            while (li < op.iovCount && lskip >= op.iov[li].byteSize()) {
                lskip -= op.iov[li].byteSize();
                li++;
            }
            long n = Math.min(Math.min(RndvHeader.len(h, ri) - rskip, op.iov[li].byteSize() - lskip), target - off);
            int w = core.write(op.iov[li].asSlice(lskip, n), op.mrs[li], 0, RndvHeader.addr(h, ri) + rskip,
                    RndvHeader.key(h, ri), op);
            if (w != 0) {
                // a write-rendezvous transfer cannot be deferred half-way here; fail it
                op.error = w == -Errno.EAGAIN ? Errno.EAGAIN : -w;
                break;
            }
            op.pending++;
            off += n;
        }
        opStep(op, 0); // the wr_data itself
    }

    // =========================================================================================
    // data-path API
    // =========================================================================================

    private long txFlags() {
        return info.txAttr == null ? 0 : info.txAttr.opFlags;
    }

    private long rxFlags() {
        return info.rxAttr == null ? 0 : info.rxAttr.opFlags;
    }

    @Override
    public int send(MemorySegment buf, MemoryRegion desc, long destAddr, Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return sendCommon(false, one, oneDesc, 1, destAddr, 0, 0, false, context, txFlags());
        }
    }

    @Override
    public int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object context) {
        synchronized (lock) {
            return sendCommon(false, iov, desc, count, destAddr, 0, 0, false, context, txFlags());
        }
    }

    @Override
    public int sendmsg(Msg msg, long flags) {
        synchronized (lock) {
            return sendCommon(false, msg.iov, msg.desc, msg.iovCount, msg.addr, 0, msg.data,
                    (flags & OpFlags.REMOTE_CQ_DATA) != 0, msg.context, flags);
        }
    }

    @Override
    public int inject(MemorySegment buf, long destAddr) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = null;
            return sendCommon(false, one, oneDesc, 1, destAddr, 0, 0, false, null, OpFlags.INJECT);
        }
    }

    @Override
    public int senddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return sendCommon(false, one, oneDesc, 1, destAddr, 0, data, true, context, txFlags());
        }
    }

    @Override
    public int injectdata(MemorySegment buf, long data, long destAddr) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = null;
            return sendCommon(false, one, oneDesc, 1, destAddr, 0, data, true, null, OpFlags.INJECT);
        }
    }

    @Override
    public int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return recvCommon(false, one, oneDesc, 1, srcAddr, 0, 0, context, rxFlags());
        }
    }

    @Override
    public int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        synchronized (lock) {
            return recvCommon(false, iov, desc, count, srcAddr, 0, 0, context, rxFlags());
        }
    }

    @Override
    public int recvmsg(Msg msg, long flags) {
        synchronized (lock) {
            return recvCommon(false, msg.iov, msg.desc, msg.iovCount, msg.addr, 0, 0, msg.context, flags);
        }
    }

    @Override
    public int tsend(MemorySegment buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return sendCommon(true, one, oneDesc, 1, destAddr, tag, 0, false, context, txFlags());
        }
    }

    @Override
    public int tsendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag,
                      Object context) {
        synchronized (lock) {
            return sendCommon(true, iov, desc, count, destAddr, tag, 0, false, context, txFlags());
        }
    }

    @Override
    public int tsendmsg(TaggedMsg msg, long flags) {
        synchronized (lock) {
            return sendCommon(true, msg.iov, msg.desc, msg.iovCount, msg.addr, msg.tag, msg.data,
                    (flags & OpFlags.REMOTE_CQ_DATA) != 0, msg.context, flags);
        }
    }

    @Override
    public int tinject(MemorySegment buf, long destAddr, long tag) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = null;
            return sendCommon(true, one, oneDesc, 1, destAddr, tag, 0, false, null, OpFlags.INJECT);
        }
    }

    @Override
    public int tsenddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long tag,
                         Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return sendCommon(true, one, oneDesc, 1, destAddr, tag, data, true, context, txFlags());
        }
    }

    @Override
    public int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = null;
            return sendCommon(true, one, oneDesc, 1, destAddr, tag, data, true, null, OpFlags.INJECT);
        }
    }

    @Override
    public int trecv(MemorySegment buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return recvCommon(true, one, oneDesc, 1, srcAddr, tag, ignore, context, rxFlags());
        }
    }

    @Override
    public int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag, long ignore,
                      Object context) {
        synchronized (lock) {
            return recvCommon(true, iov, desc, count, srcAddr, tag, ignore, context, rxFlags());
        }
    }

    @Override
    public int trecvmsg(TaggedMsg msg, long flags) {
        synchronized (lock) {
            if ((flags & (OpFlags.PEEK | OpFlags.CLAIM)) == 0) {
                return recvCommon(true, msg.iov, msg.desc, msg.iovCount, msg.addr, msg.tag, msg.ignore, msg.context,
                        flags);
            }
            return peekClaim(msg, flags);
        }
    }

    /** rxm_peek_recv and FI_CLAIM: look at, reserve, take or drop an unexpected tagged message. */
    private int peekClaim(TaggedMsg msg, long flags) {
        if (!enabled || closed) {
            return -Errno.EOPBADSTATE;
        }
        long filter = (caps & Caps.DIRECTED_RECV) != 0 ? msg.addr : Fabrics.ADDR_UNSPEC;
        Unexpected u;
        if ((flags & OpFlags.PEEK) != 0) {
            progress();
            u = trecvQ.findUnexpected(filter, msg.tag, msg.ignore);
            if (u == null) {
                rxCq.error(msg.context, OpFlags.RECV | OpFlags.TAGGED, 0, 0, Errno.ENOMSG, msg.tag, 0);
                return 0;
            }
            long cflags = OpFlags.RECV | OpFlags.TAGGED | (u.hasData ? OpFlags.REMOTE_CQ_DATA : 0);
            if ((flags & OpFlags.DISCARD) != 0) {
                trecvQ.removeUnexpected(u);
                if (!u.complete) {
                    unlinkActive(u.cd, u);
                }
                rxCq.writeFrom(msg.context, cflags, u.size, 0, u.data, u.tag, u.src);
                discard(u);
                return 0;
            }
            if ((flags & OpFlags.CLAIM) != 0) {
                u.claimedBy = msg.context;
            }
            rxCq.writeFrom(msg.context, cflags, u.size, 0, u.data, u.tag, u.src);
            return 0;
        }
        u = trecvQ.findClaimed(msg.context);
        if (u == null) {
            return -Errno.EINVAL;
        }
        trecvQ.removeUnexpected(u);
        if ((flags & OpFlags.DISCARD) != 0) {
            if (!u.complete) {
                unlinkActive(u.cd, u);
            }
            rxCq.writeFrom(msg.context, OpFlags.RECV | OpFlags.TAGGED, 0, 0, u.data, u.tag, u.src);
            discard(u);
            return 0;
        }
        RecvEntry e = acquireRecv();
        for (int i = 0; i < msg.iovCount; i++) {
            e.iov[i] = msg.iov[i];
            e.desc[i] = msg.desc == null ? null : msg.desc[i];
        }
        e.count = msg.iovCount;
        e.capacity = length(msg.iov, msg.iovCount);
        e.context = msg.context;
        e.opFlags = flags;
        e.tagged = true;
        deliverUnexpected(e, u);
        return 0;
    }

    /** Drops an unexpected message; a rendezvous one still tells its sender the buffer is free. */
    private void discard(Unexpected u) {
        if (u.kind == Unexpected.RNDV && u.generation == u.cd.generation && u.conn.ep() != null) {
            sendCtrl(u.conn, u.cd, RxmPacket.CTRL_RNDV_RD_DONE, RxmPacket.msgId(u.first.mem));
        }
        releaseUnexpected(u);
    }

    @Override
    public int read(MemorySegment buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return rmaCommon(false, one, oneDesc, 1, srcAddr, null, addr, key, 0, false, context, txFlags());
        }
    }

    @Override
    public int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                     Object context) {
        synchronized (lock) {
            return rmaCommon(false, iov, desc, count, srcAddr, null, addr, key, 0, false, context, txFlags());
        }
    }

    @Override
    public int readmsg(RmaMsg msg, long flags) {
        synchronized (lock) {
            return rmaCommon(false, null, null, 0, msg.addr, msg, 0, 0, 0, false, msg.context, flags);
        }
    }

    @Override
    public int write(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return rmaCommon(true, one, oneDesc, 1, destAddr, null, addr, key, 0, false, context, txFlags());
        }
    }

    @Override
    public int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                      Object context) {
        synchronized (lock) {
            return rmaCommon(true, iov, desc, count, destAddr, null, addr, key, 0, false, context, txFlags());
        }
    }

    @Override
    public int writemsg(RmaMsg msg, long flags) {
        synchronized (lock) {
            return rmaCommon(true, null, null, 0, msg.addr, msg, 0, 0, 0, false, msg.context, flags);
        }
    }

    @Override
    public int writedata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = desc;
            return rmaCommon(true, one, oneDesc, 1, destAddr, null, addr, key, data, true, context, txFlags());
        }
    }

    @Override
    public int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = null;
            return rmaCommon(true, one, oneDesc, 1, destAddr, null, addr, key, 0, false, null, OpFlags.INJECT);
        }
    }

    @Override
    public int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        synchronized (lock) {
            one[0] = buf;
            oneDesc[0] = null;
            return rmaCommon(true, one, oneDesc, 1, destAddr, null, addr, key, data, true, null, OpFlags.INJECT);
        }
    }

    /** Connection state to a peer, for tests and diagnostics. */
    ConnState connState(long fiAddr) {
        synchronized (lock) {
            RxmConnection<Endpoint> c = connFor(fiAddr);
            return c == null ? null : c.state();
        }
    }
}
