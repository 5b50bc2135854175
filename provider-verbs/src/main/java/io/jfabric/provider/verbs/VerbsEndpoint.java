package io.jfabric.provider.verbs;

import io.jfabric.provider.verbs.ffi.NativeSockaddr;
import io.jfabric.util.Sockaddr;
import io.jfabric.AddressVector;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.EndpointOption;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Endpoint;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.generated.ibv_context_ops;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_cap;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_init_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_recv_wr;
import io.jfabric.provider.verbs.ffi.generated.ibv_send_wr;
import io.jfabric.provider.verbs.ffi.generated.ibv_sge;
import io.jfabric.provider.verbs.ffi.generated.ibv_wc;
import io.jfabric.provider.verbs.ffi.generated.rdma_cm_id;
import io.jfabric.provider.verbs.ffi.rdma_cma_h;
import io.jfabric.provider.verbs.ffi.generated.rdma_conn_param;
import io.jfabric.provider.verbs.ffi.verbs_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Mirrors libfabric's verbs FI_EP_MSG endpoint: an RC queue pair on an rdma_cm id. Connection setup
 * runs through the bound EQ (address and route resolution, then connect; CONNECTED, SHUTDOWN and
 * rejects arrive there). Data-path calls fill a preallocated {@code ibv_send_wr}/{@code ibv_recv_wr}
 * and their scatter/gather list and post them through the ops-table pointers, which are read once
 * when the QP is created. Differences from libfabric: no FI_EP_MSG shared contexts or SRQ, no cancel
 * (verbs cannot take back a posted work request); threading is FI_THREAD_DOMAIN.
 */
final class VerbsEndpoint implements Endpoint, CmEventListener {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("verbs");
    /** Marks receive work requests in wr_id (the low bits hold the ring slot). */
    private static final long RX_BIT = 1L << 62;
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    private static final byte RDMA_MAX_DEPTH = (byte) 0xff; // "as much as both devices allow" for rdma_cm
    private static final int RETRY = 7;                    // 7 = retry forever on RNR, as libfabric's verbs
    private static final int CLOSE_DRAIN_MS = 500;

    private static final int IDLE = 0;
    private static final int ENABLED = 1;
    private static final int CONNECTING = 2;
    private static final int CONNECTED = 3;
    private static final int SHUT_DOWN = 4;
    private static final int FAILED = 5;
    private static final int CLOSED = 6;

    private final VerbsDomain domain;
    private final FabricInfo info;
    private final Object userContext;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
    private final int txSize;
    private final int rxSize;
    private final int iovLimit;
    private final int rxIovLimit;
    private final long defaultTxFlags;
    private final long defaultRxFlags;

    private MemorySegment id;
    private final ConnRequest request;
    private volatile VerbsEq eq;
    private VerbsCq txCq;
    private VerbsCq rxCq;
    private boolean selective;
    private byte[] name;
    private byte[] peer;
    private volatile int state = IDLE;
    private boolean localShutdown;

    private MemorySegment qp;
    private int qpNum = -1;
    private MemorySegment postSendFn;
    private MemorySegment postRecvFn;
    private int maxInline;
    private int unsignaled;

    // preallocated work requests and their scatter/gather lists
    private final MemorySegment sendWr;
    private final MemorySegment sendSges;
    private final MemorySegment recvWr;
    private final MemorySegment recvSges;
    private final MemorySegment badWr;
    private final MemorySegment connParam;
    private final MemorySegment privateData;
    private final TxRing tx;
    private final TxRing rx;

    VerbsEndpoint(VerbsDomain domain, FabricInfo info, Object userContext) {
        this.domain = domain;
        this.info = info.copy();
        this.userContext = userContext;
        VerbsDevice dev = domain.device();
        txSize = clamp(info.txAttr == null ? 0 : info.txAttr.size, VerbsInfos.DEFAULT_QUEUE_SIZE, dev.maxQpWr());
        rxSize = clamp(info.rxAttr == null ? 0 : info.rxAttr.size, VerbsInfos.DEFAULT_QUEUE_SIZE, dev.maxQpWr());
        iovLimit = clamp(info.txAttr == null ? 0 : info.txAttr.iovLimit, VerbsInfos.DEFAULT_IOV_LIMIT, dev.maxSge());
        rxIovLimit = clamp(info.rxAttr == null ? 0 : info.rxAttr.iovLimit, VerbsInfos.DEFAULT_IOV_LIMIT, dev.maxSge());
        defaultTxFlags = info.txAttr == null ? 0 : info.txAttr.opFlags;
        defaultRxFlags = info.rxAttr == null ? 0 : info.rxAttr.opFlags;
        sendWr = ibv_send_wr.allocate(arena);
        sendSges = ibv_sge.allocateArray(iovLimit, arena);
        recvWr = ibv_recv_wr.allocate(arena);
        recvSges = ibv_sge.allocateArray(rxIovLimit, arena);
        badWr = arena.allocate(ValueLayout.ADDRESS);
        connParam = rdma_conn_param.allocate(arena);
        privateData = arena.allocate(VerbsInfos.CM_DATA_SIZE + 1);
        tx = new TxRing(txSize);
        rx = new TxRing(rxSize);
        name = info.srcAddr == null ? null : info.srcAddr.clone();
        if (info.handle instanceof ConnRequest cr) {
            if (rdma_cm_id.verbs(rdma_cm_id.reinterpret(cr.id())).address() != domain.context().address()) {
                throw new FabricException(Errno.EINVAL, "the connection request arrived on another device; open the "
                        + "endpoint on the domain named in the CONNREQ's info (" + info.domainAttr.name + ")");
            }
            if (!cr.take()) {
                throw new FabricException(Errno.EINVAL, "this CONNREQ was already rejected or taken by another "
                        + "endpoint; each connection request is accepted or rejected once");
            }
            request = cr;
            id = rdma_cm_id.reinterpret(cr.id());
            peer = info.destAddr == null ? null : info.destAddr.clone();
        } else if (info.handle != null) {
            throw new FabricException(Errno.EINVAL, "info.handle is not a verbs connection request");
        } else {
            request = null;
        }
        domain.acquire();
    }

    private static int clamp(long asked, int dflt, int max) {
        long v = asked > 0 ? asked : dflt;
        return (int) Math.max(1, Math.min(v, max));
    }

    int qpNum() {
        return qpNum;
    }

    // ---- control path -------------------------------------------------------------------------

    @Override
    public void bind(CompletionQueue cq, long flags) {
        if (!(cq instanceof VerbsCq vcq) || vcq.domain() != domain) {
            throw new FabricException(Errno.EINVAL, "bind a CQ opened on this endpoint's verbs domain");
        }
        if (qp != null) {
            throw new FabricException(Errno.EOPBADSTATE, "endpoint is already enabled; bind CQs before enable()");
        }
        if ((flags & (BindFlags.TRANSMIT | BindFlags.RECV)) == 0) {
            throw new FabricException(Errno.EBADFLAGS, "bind a CQ with FI_TRANSMIT and/or FI_RECV");
        }
        if ((flags & BindFlags.TRANSMIT) != 0) {
            if (txCq != null) {
                throw new FabricException(Errno.EINVAL, "a transmit CQ is already bound");
            }
            vcq.acquire();
            txCq = vcq;
            selective = (flags & BindFlags.SELECTIVE_COMPLETION) != 0;
        }
        if ((flags & BindFlags.RECV) != 0) {
            if (rxCq != null) {
                throw new FabricException(Errno.EINVAL, "a receive CQ is already bound");
            }
            vcq.acquire();
            rxCq = vcq;
        }
    }

    @Override
    public synchronized void bind(EventQueue queue) {
        if (!(queue instanceof VerbsEq veq)) {
            throw new FabricException(Errno.EINVAL, "bind an EQ opened on the verbs fabric");
        }
        if (eq != null) {
            throw new FabricException(Errno.EINVAL, "endpoint is already bound to an EQ");
        }
        if (request != null) {
            if (request.eq() != veq) {
                Native.checkCm(rdma_cma_h.rdma_migrate_id(errno, id, veq.channel()), errno,
                        "rdma_migrate_id to the endpoint's EQ");
            }
        } else {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            Native.checkCm(rdma_cma_h.rdma_create_id(errno, veq.channel(), out, MemorySegment.NULL,
                    rdma_cma_h.RDMA_PS_TCP), errno, "rdma_create_id");
            id = rdma_cm_id.reinterpret(out.get(ValueLayout.ADDRESS, 0));
            byte[] src = name != null ? name : Sockaddr.of(domain.device().addresses().getFirst().ip(), 0);
            Native.checkSockaddr(src, "source address");
            if (rdma_cma_h.rdma_bind_addr(errno, id, NativeSockaddr.toNative(src, arena)) != 0) {
                int e = NativeLibrary.errno(errno);
                rdma_cma_h.rdma_destroy_id(errno, id);
                id = null;
                throw new FabricException(e, "rdma_bind_addr to " + Sockaddr.straddr(src) + " failed: "
                        + Native.strerror(e) + "; use an address of the device's network interface");
            }
            name = NativeSockaddr.fromNative(rdma_cm_id.route_addr_src_addr(id));
        }
        veq.register(id, this);
        eq = veq;
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
    public synchronized void enable() {
        if (qp != null) {
            return;
        }
        if (eq == null) {
            throw new FabricException(Errno.ENOEQ, "bind an EQ before enable(): connection events arrive there");
        }
        if (txCq == null || rxCq == null) {
            throw new FabricException(Errno.ENOCQ, "bind CQs for both FI_TRANSMIT and FI_RECV before enable() "
                    + "(a verbs QP needs a send and a receive CQ; one CQ may serve both)");
        }
        MemorySegment attr = ibv_qp_init_attr.allocate(arena);
        ibv_qp_init_attr.send_cq(attr, txCq.ibvCq());
        ibv_qp_init_attr.recv_cq(attr, rxCq.ibvCq());
        ibv_qp_init_attr.qp_type(attr, verbs_h.IBV_QPT_RC);
        ibv_qp_init_attr.sq_sig_all(attr, 0);
        MemorySegment cap = ibv_qp_init_attr.cap(attr);
        ibv_qp_cap.max_send_wr(cap, txSize);
        ibv_qp_cap.max_recv_wr(cap, rxSize);
        ibv_qp_cap.max_send_sge(cap, iovLimit);
        ibv_qp_cap.max_recv_sge(cap, rxIovLimit);
        long inject = info.txAttr == null || info.txAttr.injectSize == 0 ? VerbsInfos.DEFAULT_INJECT_SIZE
                : info.txAttr.injectSize;
        ibv_qp_cap.max_inline_data(cap, (int) inject);
        Native.checkCm(rdma_cma_h.rdma_create_qp(errno, id, domain.pd(), attr), errno,
                "rdma_create_qp (tx " + txSize + ", rx " + rxSize + ", sge " + iovLimit + ", inline " + inject + ")");
        maxInline = ibv_qp_cap.max_inline_data(cap);
        qp = ibv_qp.reinterpret(rdma_cm_id.qp(id));
        qpNum = ibv_qp.qp_num(qp);
        MemorySegment ops = ibv_context.ops(ibv_context.reinterpret(ibv_qp.context(qp)));
        postSendFn = ibv_context_ops.post_send(ops);
        postRecvFn = ibv_context_ops.post_recv(ops);
        txCq.register(this);
        rxCq.register(this);
        txCq.addDepth(txSize);
        rxCq.addDepth(rxSize);
        AsyncEvents.of(domain.device()).add(qp, this);
        state = ENABLED;
    }

    @Override
    public synchronized void connect(byte[] addr, byte[] data) {
        Native.checkSockaddr(addr, "connect address");
        if (request != null) {
            throw new FabricException(Errno.EINVAL, "this endpoint was opened from a CONNREQ: accept() it instead");
        }
        if (state != IDLE && state != ENABLED) {
            throw new FabricException(Errno.EISCONN, "connect() may be called once per endpoint");
        }
        enable();
        peer = addr.clone();
        int n = VerbsEq.encodePrivateData(data, privateData);
        fillConnParam(n);
        state = CONNECTING;
        MemorySegment dst = NativeSockaddr.toNative(addr, arena);
        if (rdma_cma_h.rdma_resolve_addr(errno, id, MemorySegment.NULL, dst, RESOLVE_TIMEOUT_MS) != 0) {
            state = ENABLED;
            Native.checkCm(-1, errno, "rdma_resolve_addr to " + Sockaddr.straddr(addr));
        }
    }

    private void fillConnParam(int privateLen) {
        rdma_conn_param.private_data(connParam, privateData);
        rdma_conn_param.private_data_len(connParam, (byte) privateLen);
        rdma_conn_param.responder_resources(connParam, RDMA_MAX_DEPTH);
        rdma_conn_param.initiator_depth(connParam, RDMA_MAX_DEPTH);
        rdma_conn_param.flow_control(connParam, (byte) 1);
        rdma_conn_param.retry_count(connParam, (byte) RETRY);
        rdma_conn_param.rnr_retry_count(connParam, (byte) RETRY);
    }

    @Override
    public synchronized void accept(byte[] data) {
        if (request == null) {
            throw new FabricException(Errno.EINVAL, "accept() needs an endpoint opened from a CONNREQ's info");
        }
        if (state != IDLE && state != ENABLED) {
            throw new FabricException(Errno.EISCONN, "accept() may be called once per endpoint");
        }
        enable();
        fillConnParam(VerbsEq.encodePrivateData(data, privateData));
        state = CONNECTING;
        Native.checkCm(rdma_cma_h.rdma_accept(errno, id, connParam), errno, "rdma_accept");
        // rdma_accept has moved the QP to RTS; the peer may send before ESTABLISHED reaches us
        setRnrTimer();
    }

    /**
     * Sets the responder's min_rnr_timer, which rdma_cm leaves at 0 (655.36 ms per RNR NAK). It is a legal RTS to
     * RTS change, so it is applied once the QP is in RTS: after rdma_accept on the passive side and on
     * ESTABLISHED on both. A failure costs speed, not correctness, so it is logged and the connection stays.
     */
    private void setRnrTimer() {
        MemorySegment q = qp;
        if (q == null || rnrTimerSet) {
            return; // the passive side sets it after rdma_accept; ESTABLISHED only retries a failure
        }
        int timer = VerbsParams.MIN_RNR_TIMER.get();
        if (timer < 0 || timer > 31) {
            LOG.log(System.Logger.Level.WARNING, "FI_VERBS_MIN_RNR_TIMER " + timer + " is out of range 0 - 31; using "
                    + VerbsParams.DEFAULT_MIN_RNR_TIMER);
            timer = VerbsParams.DEFAULT_MIN_RNR_TIMER;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(a);
            int before = -1;
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                before = queryQp(q, attr, a);
            }
            attr.fill((byte) 0);
            ibv_qp_attr.min_rnr_timer(attr, (byte) timer);
            int rc = verbs_h.ibv_modify_qp(q, attr, verbs_h.IBV_QP_MIN_RNR_TIMER);
            if (rc != 0) {
                LOG.log(System.Logger.Level.WARNING, "ibv_modify_qp(min_rnr_timer " + timer + ") on QP " + qpNum
                        + " failed: " + Native.strerror(rc) + "; each RNR NAK will stall the sender");
                return;
            }
            rnrTimerSet = true;
            if (before >= 0) {
                queryQp(q, attr, a);
                LOG.log(System.Logger.Level.DEBUG, "QP " + qpNum + ": min_rnr_timer " + before + " -> "
                        + ibv_qp_attr.min_rnr_timer(attr) + ", timeout " + ibv_qp_attr.timeout(attr) + ", retry_cnt "
                        + ibv_qp_attr.retry_cnt(attr) + ", rnr_retry " + ibv_qp_attr.rnr_retry(attr) + ", state "
                        + ibv_qp_attr.qp_state(attr));
            }
        }
    }

    private boolean rnrTimerSet;

    /** Queries the attributes that govern retries into {@code attr}; returns min_rnr_timer, or -1. */
    private static int queryQp(MemorySegment q, MemorySegment attr, Arena a) {
        attr.fill((byte) 0);
        MemorySegment init = ibv_qp_init_attr.allocate(a);
        int rc = verbs_h.ibv_query_qp(q, attr, verbs_h.IBV_QP_STATE | verbs_h.IBV_QP_MIN_RNR_TIMER
                | verbs_h.IBV_QP_TIMEOUT | verbs_h.IBV_QP_RETRY_CNT | verbs_h.IBV_QP_RNR_RETRY, init);
        return rc == 0 ? Byte.toUnsignedInt(ibv_qp_attr.min_rnr_timer(attr)) : -1;
    }

    @Override
    public synchronized void shutdown(long flags) {
        if (state == CONNECTED || state == CONNECTING) {
            localShutdown = true;
            state = SHUT_DOWN;
            // moves the QP to the error state: every posted work request is flushed with an error completion
            rdma_cma_h.rdma_disconnect(errno, id);
        }
    }

    /** rdma_cm events for this endpoint's id, delivered by the EQ's progress. */
    @Override
    public void onCmEvent(int event, int status, MemorySegment evId, byte[] data) {
        switch (event) {
            case rdma_cma_h.RDMA_CM_EVENT_ADDR_RESOLVED -> {
                if (rdma_cma_h.rdma_resolve_route(errno, id, RESOLVE_TIMEOUT_MS) != 0) {
                    fail(Errno.EHOSTUNREACH, NativeLibrary.errno(errno), null);
                }
            }
            case rdma_cma_h.RDMA_CM_EVENT_ROUTE_RESOLVED -> {
                if (rdma_cma_h.rdma_connect(errno, id, connParam) != 0) {
                    fail(Errno.ECONNREFUSED, NativeLibrary.errno(errno), null);
                }
            }
            case rdma_cma_h.RDMA_CM_EVENT_ESTABLISHED -> {
                setRnrTimer();
                state = CONNECTED;
                byte[] p = NativeSockaddr.fromNative(rdma_cm_id.route_addr_dst_addr(id));
                if (p != null) {
                    peer = p;
                }
                eq.postConnected(this, userContext, request == null ? data : null);
            }
            case rdma_cma_h.RDMA_CM_EVENT_REJECTED -> fail(Errno.ECONNREFUSED, status, data);
            case rdma_cma_h.RDMA_CM_EVENT_ADDR_ERROR -> fail(Errno.EADDRNOTAVAIL, status, null);
            case rdma_cma_h.RDMA_CM_EVENT_ROUTE_ERROR, rdma_cma_h.RDMA_CM_EVENT_UNREACHABLE ->
                    fail(Errno.EHOSTUNREACH, status, null);
            case rdma_cma_h.RDMA_CM_EVENT_CONNECT_ERROR -> fail(Errno.ECONNREFUSED, status, null);
            case rdma_cma_h.RDMA_CM_EVENT_DISCONNECTED -> {
                boolean wasUp = state == CONNECTED;
                state = SHUT_DOWN;
                if (!localShutdown) {
                    // our side of the QP may still be in RTS: move it to error so that every posted
                    // operation is flushed with an error completion instead of waiting forever
                    rdma_cma_h.rdma_disconnect(errno, id);
                    if (wasUp) {
                        eq.postShutdown(this, userContext);
                    }
                }
            }
            case rdma_cma_h.RDMA_CM_EVENT_DEVICE_REMOVAL -> fail(Errno.ENODEV, status, null);
            default -> LOG.log(System.Logger.Level.DEBUG, "ignored rdma_cm event " + event + " on " + this);
        }
    }

    /** A device async event that hit this endpoint (from the device's watcher thread). */
    void asyncError(int err, int eventType, byte[] text) {
        VerbsEq q = eq;
        if (q != null && state != CLOSED) {
            q.postError(this, userContext, 0, err, eventType, text);
        }
    }

    private void fail(int err, int provErrno, byte[] data) {
        state = FAILED;
        eq.postError(this, userContext, 0, err, provErrno, data);
    }

    @Override
    public byte[] getName() {
        return name == null ? null : name.clone();
    }

    @Override
    public void setName(byte[] addr) {
        Native.checkSockaddr(addr, "address");
        if (id != null) {
            throw new FabricException(Errno.EOPBADSTATE, "setName() must come before the EQ is bound");
        }
        name = addr.clone();
    }

    @Override
    public byte[] getPeer() {
        if (peer == null) {
            throw new FabricException(Errno.ENOTCONN, "endpoint is not connected");
        }
        return peer.clone();
    }

    @Override
    public long getOpt(EndpointOption option) {
        return switch (option) {
            case CM_DATA_SIZE -> VerbsInfos.CM_DATA_SIZE;
            case TX_SIZE -> txSize;
            case RX_SIZE -> rxSize;
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

    // ---- data path: transmit ------------------------------------------------------------------

    private int txReady() {
        int s = state;
        if (s == CONNECTED) {
            return 0;
        }
        return s == CONNECTING || s == ENABLED && peer != null ? -Errno.EAGAIN : -Errno.ENOTCONN;
    }

    /** Puts one buffer in sge {@code i}; returns its length, or a negative errno. */
    private static long fillSge(MemorySegment sges, int i, MemorySegment buf, MemoryRegion desc, boolean inline) {
        if (buf == null || !buf.isNative()) {
            return -Errno.EINVAL; // the NIC cannot reach heap memory
        }
        MemorySegment sge = ibv_sge.asSlice(sges, i);
        ibv_sge.addr(sge, buf.address());
        ibv_sge.length(sge, (int) buf.byteSize());
        if (buf.byteSize() == 0) {
            ibv_sge.lkey(sge, 0); // the NIC touches no byte of an empty buffer: no registration needed
            return 0;
        }
        if (desc instanceof VerbsMemoryRegion mr) {
            if (!mr.covers(buf)) {
                return -Errno.EINVAL;
            }
            ibv_sge.lkey(sge, mr.lkey());
        } else if (inline) {
            ibv_sge.lkey(sge, 0); // inline data is copied by the CPU: no key needed
        } else {
            return -Errno.EINVAL; // FI_MR_LOCAL: every local buffer needs its MemoryRegion as desc
        }
        return buf.byteSize();
    }

    private int postSend(int opcode, int nsge, long totalLen, long data, long raddr, long rkey, Object ctx,
                         long opFlags, long compFlags) {
        int rc = txReady();
        if (rc != 0) {
            return rc;
        }
        if (tx.full()) {
            return -Errno.EAGAIN;
        }
        boolean inject = (opFlags & OpFlags.INJECT) != 0;
        if (inject && totalLen > maxInline) {
            return -Errno.EMSGSIZE;
        }
        if ((rkey & ~0xffffffffL) != 0) {
            return -Errno.EINVAL;
        }
        if (!txCq.takeCredit()) {
            return -Errno.EAGAIN;
        }
        boolean report = !inject && (!selective || (opFlags & OpFlags.COMPLETION) != 0);
        // unsignaled work requests are only retired by a later signaled one: signal now and then
        boolean signal = report || unsignaled + 1 >= txSize / 2;
        int slot = tx.next();
        ibv_send_wr.wr_id(sendWr, slot);
        ibv_send_wr.next(sendWr, MemorySegment.NULL);
        ibv_send_wr.sg_list(sendWr, sendSges);
        ibv_send_wr.num_sge(sendWr, nsge);
        ibv_send_wr.opcode(sendWr, opcode);
        // small sends and writes go inline (the CPU copies them into the WQE), as libfabric's verbs does
        boolean inline = opcode != verbs_h.IBV_WR_RDMA_READ && totalLen <= maxInline;
        int sendFlags = (signal ? verbs_h.IBV_SEND_SIGNALED : 0)
                | (inline ? verbs_h.IBV_SEND_INLINE : 0)
                | ((opFlags & OpFlags.FENCE) != 0 ? verbs_h.IBV_SEND_FENCE : 0);
        ibv_send_wr.send_flags(sendWr, sendFlags);
        ibv_send_wr.imm_data(sendWr, Integer.reverseBytes((int) data)); // imm_data is big endian on the wire
        ibv_send_wr.wr_rdma_remote_addr(sendWr, raddr);
        ibv_send_wr.wr_rdma_rkey(sendWr, (int) rkey);
        rc = verbs_h.ibv_post_send(postSendFn, qp.address(), sendWr.address(), badWr.address());
        if (rc != 0) {
            txCq.returnCredit();
            return rc == Errno.ENOMEM ? -Errno.EAGAIN : -rc;
        }
        unsignaled = signal ? 0 : unsignaled + 1;
        tx.commit(slot, ctx, compFlags, totalLen, report);
        return 0;
    }

    private int sendOne(int opcode, MemorySegment buf, MemoryRegion desc, long data, long raddr, long rkey, Object ctx,
                        long opFlags, long compFlags) {
        if (qp == null) {
            return -Errno.ENOTCONN;
        }
        long n = fillSge(sendSges, 0, buf, desc, (opFlags & OpFlags.INJECT) != 0);
        if (n < 0) {
            return (int) n;
        }
        return postSend(opcode, n == 0 ? 0 : 1, n, data, raddr, rkey, ctx, opFlags, compFlags); // a zero-length WR has no SGE
    }

    private int sendMany(int opcode, MemorySegment[] iov, MemoryRegion[] desc, int count, long data, long raddr,
                         long rkey, Object ctx, long opFlags, long compFlags) {
        if (qp == null) {
            return -Errno.ENOTCONN;
        }
        if (count < 0 || count > iovLimit || iov == null || iov.length < count) {
            return -Errno.EINVAL;
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            long n = fillSge(sendSges, i, iov[i], desc == null ? null : desc[i], (opFlags & OpFlags.INJECT) != 0);
            if (n < 0) {
                return (int) n;
            }
            total += n;
        }
        return postSend(opcode, count, total, data, raddr, rkey, ctx, opFlags, compFlags);
    }

    private static final long SEND_FLAGS = OpFlags.SEND | OpFlags.MSG;
    private static final long WRITE_FLAGS = OpFlags.RMA | OpFlags.WRITE;
    private static final long READ_FLAGS = OpFlags.RMA | OpFlags.READ;

    @Override
    public int send(MemorySegment buf, MemoryRegion desc, long destAddr, Object context) {
        return sendOne(verbs_h.IBV_WR_SEND, buf, desc, 0, 0, 0, context, defaultTxFlags, SEND_FLAGS);
    }

    @Override
    public int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object context) {
        return sendMany(verbs_h.IBV_WR_SEND, iov, desc, count, 0, 0, 0, context, defaultTxFlags, SEND_FLAGS);
    }

    @Override
    public int sendmsg(Msg msg, long flags) {
        boolean data = (flags & OpFlags.REMOTE_CQ_DATA) != 0;
        return sendMany(data ? verbs_h.IBV_WR_SEND_WITH_IMM : verbs_h.IBV_WR_SEND, msg.iov, msg.desc, msg.iovCount,
                msg.data, 0, 0, msg.context, flags, SEND_FLAGS);
    }

    @Override
    public int inject(MemorySegment buf, long destAddr) {
        return sendOne(verbs_h.IBV_WR_SEND, buf, null, 0, 0, 0, null, OpFlags.INJECT, SEND_FLAGS);
    }

    @Override
    public int senddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return sendOne(verbs_h.IBV_WR_SEND_WITH_IMM, buf, desc, data, 0, 0, context, defaultTxFlags, SEND_FLAGS);
    }

    @Override
    public int injectdata(MemorySegment buf, long data, long destAddr) {
        return sendOne(verbs_h.IBV_WR_SEND_WITH_IMM, buf, null, data, 0, 0, null, OpFlags.INJECT, SEND_FLAGS);
    }

    @Override
    public int read(MemorySegment buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return sendOne(verbs_h.IBV_WR_RDMA_READ, buf, desc, 0, addr, key, context, defaultTxFlags, READ_FLAGS);
    }

    @Override
    public int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                     Object context) {
        return sendMany(verbs_h.IBV_WR_RDMA_READ, iov, desc, count, 0, addr, key, context, defaultTxFlags, READ_FLAGS);
    }

    @Override
    public int readmsg(RmaMsg msg, long flags) {
        if (msg.rmaIovCount != 1) {
            return -Errno.EINVAL; // rma_iov_limit is 1, as libfabric's verbs
        }
        return sendMany(verbs_h.IBV_WR_RDMA_READ, msg.iov, msg.desc, msg.iovCount, 0, msg.rmaIov[0].addr,
                msg.rmaIov[0].key, msg.context, flags & ~OpFlags.INJECT, READ_FLAGS);
    }

    @Override
    public int write(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return sendOne(verbs_h.IBV_WR_RDMA_WRITE, buf, desc, 0, addr, key, context, defaultTxFlags, WRITE_FLAGS);
    }

    @Override
    public int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                      Object context) {
        return sendMany(verbs_h.IBV_WR_RDMA_WRITE, iov, desc, count, 0, addr, key, context, defaultTxFlags, WRITE_FLAGS);
    }

    @Override
    public int writemsg(RmaMsg msg, long flags) {
        if (msg.rmaIovCount != 1) {
            return -Errno.EINVAL;
        }
        boolean data = (flags & OpFlags.REMOTE_CQ_DATA) != 0;
        return sendMany(data ? verbs_h.IBV_WR_RDMA_WRITE_WITH_IMM : verbs_h.IBV_WR_RDMA_WRITE, msg.iov, msg.desc,
                msg.iovCount, msg.data, msg.rmaIov[0].addr, msg.rmaIov[0].key, msg.context, flags, WRITE_FLAGS);
    }

    @Override
    public int writedata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        return sendOne(verbs_h.IBV_WR_RDMA_WRITE_WITH_IMM, buf, desc, data, addr, key, context, defaultTxFlags,
                WRITE_FLAGS);
    }

    @Override
    public int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        return sendOne(verbs_h.IBV_WR_RDMA_WRITE, buf, null, 0, addr, key, null, OpFlags.INJECT, WRITE_FLAGS);
    }

    @Override
    public int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        return sendOne(verbs_h.IBV_WR_RDMA_WRITE_WITH_IMM, buf, null, data, addr, key, null, OpFlags.INJECT,
                WRITE_FLAGS);
    }

    // ---- data path: receive -------------------------------------------------------------------

    @Override
    public int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object context) {
        if (qp == null) {
            return -Errno.EOPBADSTATE; // receives may be posted once enabled, before connect/accept
        }
        long n = fillSge(recvSges, 0, buf, desc, false);
        if (n < 0) {
            return (int) n;
        }
        return postRecv(n == 0 ? 0 : 1, n, context);
    }

    @Override
    public int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        if (qp == null) {
            return -Errno.EOPBADSTATE;
        }
        if (count < 0 || count > rxIovLimit || iov == null || iov.length < count) {
            return -Errno.EINVAL;
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            long n = fillSge(recvSges, i, iov[i], desc == null ? null : desc[i], false);
            if (n < 0) {
                return (int) n;
            }
            total += n;
        }
        return postRecv(count, total, context);
    }

    @Override
    public int recvmsg(Msg msg, long flags) {
        return recvv(msg.iov, msg.desc, msg.iovCount, msg.addr, msg.context);
    }

    private int postRecv(int nsge, long total, Object context) {
        int s = state;
        if (s == SHUT_DOWN || s == FAILED || s == CLOSED) {
            return -Errno.ENOTCONN;
        }
        if (rx.full() || !rxCq.takeCredit()) {
            return -Errno.EAGAIN;
        }
        int slot = rx.next();
        ibv_recv_wr.wr_id(recvWr, RX_BIT | slot);
        ibv_recv_wr.next(recvWr, MemorySegment.NULL);
        ibv_recv_wr.sg_list(recvWr, recvSges);
        ibv_recv_wr.num_sge(recvWr, nsge);
        int rc = verbs_h.ibv_post_recv(postRecvFn, qp.address(), recvWr.address(), badWr.address());
        if (rc != 0) {
            rxCq.returnCredit();
            return rc == Errno.ENOMEM ? -Errno.EAGAIN : -rc;
        }
        rx.commit(slot, context, OpFlags.RECV | OpFlags.MSG, total, true);
        return 0;
    }

    // ---- completions --------------------------------------------------------------------------

    /** Translates one work completion of this endpoint's QP into {@code cq}'s ring. */
    void completed(MemorySegment wc, VerbsCq cq) {
        long wrId = ibv_wc.wr_id(wc);
        boolean isRecv = (wrId & RX_BIT) != 0;
        TxRing ring = isRecv ? rx : tx;
        VerbsCq owner = isRecv ? rxCq : txCq;
        int slot = (int) (wrId & ~RX_BIT);
        if (!ring.outstanding(slot)) {
            return; // already retired (synthesized on close)
        }
        // earlier unsignaled sends finished successfully before this one (RC completes in order)
        while (ring.tail != slot) {
            ring.releaseTail();
            owner.returnCredit();
        }
        owner.returnCredit();
        int status = ibv_wc.status(wc);
        Object ctx = ring.context[slot];
        long flags = ring.flags[slot];
        long len = ring.length[slot];
        boolean report = ring.report[slot];
        ring.releaseTail();
        if (status != verbs_h.IBV_WC_SUCCESS) {
            cq.pushError(ctx, flags, len, WcStatus.toErrno(status, isRecv), status);
            if (status != verbs_h.IBV_WC_WR_FLUSH_ERR) {
                LOG.log(System.Logger.Level.DEBUG, "work completion error on QP " + qpNum + ": " + WcStatus.text(status));
            }
            return;
        }
        if (!isRecv) {
            if (report) {
                cq.push(ctx, flags, len, 0);
            }
            return;
        }
        int opcode = ibv_wc.opcode(wc);
        long data = 0;
        if ((ibv_wc.wc_flags(wc) & verbs_h.IBV_WC_WITH_IMM) != 0) {
            data = Integer.toUnsignedLong(Integer.reverseBytes(ibv_wc.imm_data(wc)));
            flags |= OpFlags.REMOTE_CQ_DATA;
        }
        if (opcode == verbs_h.IBV_WC_RECV_RDMA_WITH_IMM) {
            // a writedata landed in the target's memory; it consumed this receive only for its data
            flags = OpFlags.RMA | OpFlags.REMOTE_WRITE | OpFlags.REMOTE_CQ_DATA;
            cq.push(ctx, flags, Integer.toUnsignedLong(ibv_wc.byte_len(wc)), data);
            return;
        }
        cq.push(ctx, flags, Integer.toUnsignedLong(ibv_wc.byte_len(wc)), data);
    }

    /** Completes everything still posted with ECANCELED (after the QP is gone, nothing else will). */
    private void cancelOutstanding(TxRing ring, VerbsCq cq) {
        while (ring.count > 0) {
            int slot = ring.tail;
            if (cq.room() > 0) {
                cq.pushError(ring.context[slot], ring.flags[slot], ring.length[slot], Errno.ECANCELED, 0);
            }
            ring.releaseTail();
            cq.returnCredit();
        }
    }

    @Override
    public synchronized void close() {
        if (state == CLOSED) {
            return;
        }
        if (qp != null) {
            if (state == CONNECTED || state == CONNECTING) {
                rdma_cma_h.rdma_disconnect(errno, id);
            }
            // let the flush completions arrive, so each posted operation gets its own error completion
            long deadline = System.nanoTime() + CLOSE_DRAIN_MS * 1_000_000L;
            while ((tx.count > 0 || rx.count > 0) && System.nanoTime() < deadline
                    && (txCq.room() > 0 && rxCq.room() > 0)) {
                txCq.progress();
                rxCq.progress();
                if (tx.count > 0 || rx.count > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                }
            }
            txCq.progress();
            rxCq.progress();
            txCq.unregister(this);
            rxCq.unregister(this);
            txCq.removeDepth(txSize);
            rxCq.removeDepth(rxSize);
            cancelOutstanding(tx, txCq);
            cancelOutstanding(rx, rxCq);
            AsyncEvents.of(domain.device()).remove(qp);
            rdma_cma_h.rdma_destroy_qp(errno, id);
            qp = null;
        }
        if (id != null) {
            if (eq != null) {
                eq.unregister(id);
            }
            rdma_cma_h.rdma_destroy_id(errno, id);
            id = null;
        }
        state = CLOSED;
        if (txCq != null) {
            txCq.release();
        }
        if (rxCq != null) {
            rxCq.release();
        }
        domain.release();
        arena.close();
    }

    @Override
    public String toString() {
        return "VerbsEndpoint[qp=" + qpNum + ", " + Sockaddr.straddr(name) + " -> " + Sockaddr.straddr(peer)
                + ", state=" + state + ", tx=" + tx.count + "/" + txSize + ", rx=" + rx.count + "/" + rxSize + "]";
    }
}
