package io.jfabric.provider.verbs;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.NativeSockaddr;
import io.jfabric.provider.verbs.ffi.generated.rdma_cm_id;
import io.jfabric.provider.verbs.ffi.generated.rdma_conn_param;
import io.jfabric.provider.verbs.ffi.rdma_cma_h;
import io.jfabric.util.FabricLog;
import io.jfabric.util.jfr.ConnectionEvent;
import io.jfabric.util.Sockaddr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One endpoint's connection, as libfabric's verbs CM: the rdma_cm id, active set-up (address and route
 * resolution, then connect), the passive side's accept of a {@link VerbsCmRequest}, teardown, and the
 * rdma_cm events of the id (delivered by the EQ's {@link VerbsCmChannel}), which post CONNECTED, SHUTDOWN
 * and error entries on the EQ. The data path reads its state ({@link #txReady}, {@link #rxReady}).
 */
final class VerbsCm implements VerbsCmChannel.Listener {
    private static final String PROV = "verbs";
    private static final System.Logger LOG = FabricLog.logger(PROV);
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    private static final byte RDMA_MAX_DEPTH = (byte) 0xff; // "as much as both devices allow" for rdma_cm
    /** 7 = retry forever on RNR (the peer is there, its receives are not yet), as libfabric's verbs. */
    private static final int RNR_RETRY = 7;
    /**
     * Transport retries after an unanswered packet. libfabric's verbs asks for 7, the most; rxe reads 7 as
     * "forever" (the IB spec does not), so a peer that vanished would never fail a send. 6 is bounded on every
     * device: seven ACK timeouts (2.1 s each on Soft-RoCE under rdma_cm, so about 15 s) before the send fails ETIMEDOUT.
     */
    private static final int TRANSPORT_RETRY = 6;

    private static final int IDLE = 0;
    private static final int ENABLED = 1;
    private static final int CONNECTING = 2;
    private static final int CONNECTED = 3;
    private static final int SHUT_DOWN = 4;
    private static final int FAILED = 5;
    private static final int CLOSED = 6;

    private final VerbsEndpoint fid;
    private final Object userContext;
    private final VerbsDomain domain;
    private final Arena arena;
    private final MemorySegment errno;
    private final MemorySegment connParam;
    private final MemorySegment privateData;
    /** The CONNREQ this endpoint was opened from (passive side), or null (active side). */
    private final VerbsCmRequest request;

    private MemorySegment id;
    private volatile VerbsEq eq;
    private byte[] name;
    private byte[] peer;
    private volatile int state = IDLE;
    private boolean localShutdown;

    /**
     * @param fid the endpoint, as EQ entries name it; told when the connection is established
     * @param handle the info's handle: a CONNREQ's {@link VerbsCmRequest}, or null
     */
    VerbsCm(VerbsEndpoint fid, Object userContext, VerbsDomain domain, Arena arena, MemorySegment errno,
            Object handle, byte[] srcAddr, byte[] destAddr, String domainName) {
        this.fid = fid;
        this.userContext = userContext;
        this.domain = domain;
        this.arena = arena;
        this.errno = errno;
        connParam = rdma_conn_param.allocate(arena);
        privateData = arena.allocate(VerbsInfos.CM_DATA_SIZE + 1);
        name = srcAddr == null ? null : srcAddr.clone();
        if (handle instanceof VerbsCmRequest cr) {
            if (rdma_cm_id.verbs(rdma_cm_id.reinterpret(cr.id())).address() != domain.context().address()) {
                throw new FabricException(Errno.EINVAL, "the connection request arrived on another device; open the "
                        + "endpoint on the domain named in the CONNREQ's info (" + domainName + ")");
            }
            if (!cr.take()) {
                throw new FabricException(Errno.EINVAL, "this CONNREQ was already rejected or taken by another "
                        + "endpoint; each connection request is accepted or rejected once");
            }
            request = cr;
            id = rdma_cm_id.reinterpret(cr.id());
            peer = destAddr == null ? null : destAddr.clone();
        } else if (handle != null) {
            throw new FabricException(Errno.EINVAL, "info.handle is not a verbs connection request");
        } else {
            request = null;
        }
    }

    MemorySegment id() {
        return id;
    }

    boolean hasEq() {
        return eq != null;
    }

    // ---- control path -------------------------------------------------------------------------

    /** Binds the EQ: migrates a CONNREQ's id to it, or creates and binds the active side's id on it. */
    void bindEq(VerbsEq veq) {
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

    /** The QP exists: receives may be posted, and the endpoint may connect or accept. */
    void enabled() {
        state = ENABLED;
    }

    /** Refuses a connect that cannot happen, before the endpoint enables itself for it. */
    void checkConnect(byte[] addr) {
        Native.checkSockaddr(addr, "connect address");
        if (request != null) {
            throw new FabricException(Errno.EINVAL, "this endpoint was opened from a CONNREQ: accept() it instead");
        }
        checkUnconnected("connect()");
    }

    /** Refuses an accept that cannot happen, before the endpoint enables itself for it. */
    void checkAccept() {
        if (request == null) {
            throw new FabricException(Errno.EINVAL, "accept() needs an endpoint opened from a CONNREQ's info");
        }
        checkUnconnected("accept()");
    }

    private void checkUnconnected(String call) {
        if (state != IDLE && state != ENABLED) {
            throw new FabricException(Errno.EISCONN, call + " may be called once per endpoint");
        }
    }

    /** Starts the active side: resolution runs on, driven by the EQ's events. */
    void connect(byte[] addr, byte[] data) {
        peer = addr.clone();
        fillConnParam(encodePrivateData(data, privateData));
        state = CONNECTING;
        MemorySegment dst = NativeSockaddr.toNative(addr, arena);
        if (rdma_cma_h.rdma_resolve_addr(errno, id, MemorySegment.NULL, dst, RESOLVE_TIMEOUT_MS) != 0) {
            state = ENABLED;
            Native.checkCm(-1, errno, "rdma_resolve_addr to " + Sockaddr.straddr(addr));
        }
    }

    void accept(byte[] data) {
        fillConnParam(encodePrivateData(data, privateData));
        state = CONNECTING;
        Native.checkCm(rdma_cma_h.rdma_accept(errno, id, connParam), errno, "rdma_accept");
        // rdma_accept has moved the QP to RTS; the peer may send before ESTABLISHED reaches us
        fid.inRts();
    }

    private void fillConnParam(int privateLen) {
        rdma_conn_param.private_data(connParam, privateData);
        rdma_conn_param.private_data_len(connParam, (byte) privateLen);
        rdma_conn_param.responder_resources(connParam, RDMA_MAX_DEPTH);
        rdma_conn_param.initiator_depth(connParam, RDMA_MAX_DEPTH);
        rdma_conn_param.flow_control(connParam, (byte) 1);
        rdma_conn_param.retry_count(connParam, (byte) TRANSPORT_RETRY);
        rdma_conn_param.rnr_retry_count(connParam, (byte) RNR_RETRY);
    }

    /** Writes {@code data} behind a one-byte length into {@code dst}, as libfabric's verbs sends it; returns the bytes used. */
    static int encodePrivateData(byte[] data, MemorySegment dst) {
        int n = data == null ? 0 : Math.min(data.length, VerbsInfos.CM_DATA_SIZE);
        dst.set(ValueLayout.JAVA_BYTE, 0, (byte) n);
        if (n > 0) {
            MemorySegment.copy(data, 0, dst, ValueLayout.JAVA_BYTE, 1, n);
        }
        return n + 1;
    }

    void shutdown() {
        if (state == CONNECTED || state == CONNECTING) {
            localShutdown = true;
            state = SHUT_DOWN;
            // moves the QP to the error state: every posted work request is flushed with an error completion
            rdma_cma_h.rdma_disconnect(errno, id);
        }
    }

    /** Endpoint close, before the QP goes: a live connection is disconnected, which flushes the posted work. */
    void disconnectForClose() {
        if (state == CONNECTED || state == CONNECTING) {
            rdma_cma_h.rdma_disconnect(errno, id);
        }
    }

    /** Endpoint close, after the QP is gone: the id leaves the EQ and is destroyed. */
    void close() {
        if (id != null) {
            if (eq != null) {
                eq.unregister(id);
            }
            rdma_cma_h.rdma_destroy_id(errno, id);
            id = null;
        }
        state = CLOSED;
    }

    boolean isClosed() {
        return state == CLOSED;
    }

    // ---- events -------------------------------------------------------------------------------

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
                fid.inRts();
                state = CONNECTED;
                byte[] p = NativeSockaddr.fromNative(rdma_cm_id.route_addr_dst_addr(id));
                if (p != null) {
                    peer = p;
                }
                ConnectionEvent.emitSockaddrs(PROV, ConnectionEvent.ESTABLISHED, name, peer, "");
                eq.postConnected(fid, userContext, request == null ? data : null);
            }
            case rdma_cma_h.RDMA_CM_EVENT_REJECTED -> fail(Errno.ECONNREFUSED, status, data);
            case rdma_cma_h.RDMA_CM_EVENT_ADDR_ERROR -> fail(Errno.EADDRNOTAVAIL, status, null);
            case rdma_cma_h.RDMA_CM_EVENT_ROUTE_ERROR, rdma_cma_h.RDMA_CM_EVENT_UNREACHABLE ->
                    fail(Errno.EHOSTUNREACH, status, null);
            case rdma_cma_h.RDMA_CM_EVENT_CONNECT_ERROR -> fail(Errno.ECONNREFUSED, status, null);
            case rdma_cma_h.RDMA_CM_EVENT_DISCONNECTED -> {
                boolean wasUp;
                synchronized (this) {
                    wasUp = state == CONNECTED;
                    state = SHUT_DOWN;
                }
                if (wasUp || localShutdown) {
                    ConnectionEvent.emitSockaddrs(PROV, ConnectionEvent.CLOSED, name, peer,
                            localShutdown ? "fi_shutdown" : "peer disconnected");
                }
                if (!localShutdown) {
                    // our side of the QP may still be in RTS: move it to error so that every posted
                    // operation is flushed with an error completion instead of waiting forever
                    rdma_cma_h.rdma_disconnect(errno, id);
                    if (wasUp) {
                        eq.postShutdown(fid, userContext);
                    }
                }
            }
            case rdma_cma_h.RDMA_CM_EVENT_DEVICE_REMOVAL -> fail(Errno.ENODEV, status, null);
            default -> LOG.log(System.Logger.Level.DEBUG, "ignored rdma_cm event " + event + " on " + fid);
        }
    }

    /**
     * A work completion said the peer stopped answering ({@link WcStatus#peerLost}): the connection is over, though
     * rdma_cm has seen nothing. Told once on the EQ, as an error entry and FI_SHUTDOWN, as tcp tells a connection
     * its keepalive ended; the DREQ tells the peer, if it can still be reached, and flushes what is still posted.
     */
    void transportFailed(int err, int status, byte[] text) {
        synchronized (this) {
            if (state != CONNECTED) {
                return;
            }
            state = FAILED;
        }
        ConnectionEvent.emitSockaddrs(PROV, ConnectionEvent.CLOSED, name, peer, Errno.name(err) + " ("
                + WcStatus.text(status) + ")");
        MemorySegment i = id;
        if (i != null) {
            rdma_cma_h.rdma_disconnect(errno, i);
        }
        VerbsEq q = eq;
        if (q != null) {
            q.postError(fid, userContext, 0, err, status, text);
            q.postShutdown(fid, userContext);
        }
    }

    /** A device async event that hit this endpoint (from the device's watcher thread). */
    void asyncError(int err, int eventType, byte[] text) {
        VerbsEq q = eq;
        if (q != null && state != CLOSED) {
            q.postError(fid, userContext, 0, err, eventType, text);
        }
    }

    private void fail(int err, int provErrno, byte[] data) {
        if (ConnectionEvent.isRecorded()) {
            ConnectionEvent.emitSockaddrs(PROV, state == CONNECTED ? ConnectionEvent.CLOSED : ConnectionEvent.REFUSED,
                    name, peer, Errno.name(err) + " (rdma_cm status " + provErrno + ")");
        }
        state = FAILED;
        eq.postError(fid, userContext, 0, err, provErrno, data);
    }

    // ---- data path ----------------------------------------------------------------------------

    /** 0 when sends may be posted; EAGAIN while connecting, ENOTCONN otherwise. */
    int txReady() {
        int s = state;
        if (s == CONNECTED) {
            return 0;
        }
        return s == CONNECTING || s == ENABLED && peer != null ? -Errno.EAGAIN : -Errno.ENOTCONN;
    }

    /** 0 when receives may be posted: from enable until the connection ends. */
    int rxReady() {
        int s = state;
        return s == SHUT_DOWN || s == FAILED || s == CLOSED ? -Errno.ENOTCONN : 0;
    }

    // ---- names --------------------------------------------------------------------------------

    byte[] name() {
        return name == null ? null : name.clone();
    }

    void setName(byte[] addr) {
        Native.checkSockaddr(addr, "address");
        if (id != null) {
            throw new FabricException(Errno.EOPBADSTATE, "setName() must come before the EQ is bound");
        }
        name = addr.clone();
    }

    byte[] peer() {
        if (peer == null) {
            throw new FabricException(Errno.ENOTCONN, "endpoint is not connected");
        }
        return peer.clone();
    }

    @Override
    public String toString() {
        return (name == null ? "-" : Sockaddr.straddr(name)) + " -> " + (peer == null ? "-" : Sockaddr.straddr(peer))
                + ", state=" + state;
    }
}
