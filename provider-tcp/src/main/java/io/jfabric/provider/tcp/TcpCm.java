package io.jfabric.provider.tcp;

import io.jfabric.util.Sockaddr;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.provider.tcp.wire.WireStatus;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.jfr.ConnectionEvent;
import io.jfabric.util.jfr.EndpointStatisticsEvent;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One endpoint's connection management, libfabric tcp's {@code xnet_cm.c} on the active side: connect with CM
 * data (connreq, then the connresp or nack read on the same stream), accept of a CONNREQ (the passive side's
 * {@link ConnRequest}), shutdown, and the EQ events for each, including the peer's failure. Runs under the
 * endpoint's lock; the data path asks it only whether the connection carries data ({@link #txState}).
 */
final class TcpCm {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger(TcpParams.PROV);

    private static final int IDLE = 0;
    private static final int CONNECTING = 1;
    private static final int REQ_SENDING = 2;
    private static final int REQ_SENT = 3;
    private static final int CONNECTED = 4;
    private static final int ENDED = 5;

    private final TcpEndpoint ep;
    private final FabricInfo info;
    private final Object context;
    private final TcpFabric fabric;
    private final TcpProgress engine;
    private final TcpConnection conn;
    private final EndpointBindings bindings;

    private volatile int state = IDLE;
    private ConnRequest request;
    private ByteBuffer cmOut;
    private final ByteBuffer cmHdr = ByteBuffer.allocateDirect(CmMessage.HEADER_SIZE);
    private final MemorySegment cmHdrSeg = MemorySegment.ofBuffer(cmHdr);
    private ByteBuffer cmData;
    private SelectionKey key;
    private InetSocketAddress peer;
    private InetSocketAddress local;

    TcpCm(TcpEndpoint ep, FabricInfo info, Object context, TcpFabric fabric, TcpProgress engine,
          EndpointBindings bindings) {
        this.ep = ep;
        this.info = info;
        this.context = context;
        this.fabric = fabric;
        this.engine = engine;
        this.conn = engine.connection();
        this.bindings = bindings;
        if (info.handle instanceof ConnRequest r) {
            if (r.consumed) {
                throw new FabricException(Errno.EINVAL, "this connection request was already accepted or rejected");
            }
            r.consumed = true;
            this.request = r;
        }
    }

    private TcpEq eq() {
        return (TcpEq) bindings.eq();
    }

    /** 0 when data may be sent, -EAGAIN while connecting, -ENOTCONN before connect or once ended. */
    int txState() {
        int s = state;
        if (s == CONNECTED) {
            return 0;
        }
        if (s == CONNECTING || s == REQ_SENDING || s == REQ_SENT) {
            return -Errno.EAGAIN;
        }
        return -Errno.ENOTCONN;
    }

    boolean isEnded() {
        return state == ENDED;
    }

    boolean isConnected() {
        return state == CONNECTED;
    }

    // =================================================================== set-up

    void connect(byte[] addr, byte[] data) {
        try {
            if (state != IDLE || request != null) {
                throw new FabricException(Errno.EISCONN, "fi_connect may be called once, on a fresh endpoint");
            }
            byte[] dest = addr != null ? addr : info.destAddr;
            if (dest == null) {
                throw new FabricException(Errno.EINVAL, "no destination: pass an address or set info.destAddr");
            }
            InetSocketAddress target = Sockaddr.toInet(dest);
            cmOut = message(CmMessage.TYPE_CONNREQ, data, conn.sameHost != null);
            SocketChannel ch = SocketChannel.open(target.getAddress() instanceof Inet6Address
                    ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            try {
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, TcpParams.NODELAY.get());
                ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
                if (info.srcAddr != null) {
                    InetSocketAddress src = Sockaddr.toInet(info.srcAddr);
                    if (!src.getAddress().isAnyLocalAddress() || src.getPort() != 0) {
                        ch.bind(src);
                    }
                }
                boolean done = ch.connect(target);
                if (done) {
                    UserTimeout.apply(ch);
                }
                conn.attach(ch);
                peer = target;
                state = done ? REQ_SENDING : CONNECTING;
                key = fabric.register(ch, done ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT, ep);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            step();
        } catch (IOException e) {
            throw new FabricException(connectErrno(e), "cannot connect: " + e.getMessage());
        }
    }

    /** Refuses (EINVAL) an accept on an endpoint not opened from a CONNREQ's info, or accepted already. */
    void checkCanAccept() {
        if (request == null || state != IDLE) {
            throw new FabricException(Errno.EINVAL, "fi_accept needs an endpoint opened from a CONNREQ's info,"
                    + " accepted once");
        }
    }

    void accept(byte[] data) {
        checkCanAccept();
        ConnRequest r = request;
        ByteBuffer resp = message(CmMessage.TYPE_CONNRESP, data, conn.sameHost != null);
        SocketChannel ch = r.ch;
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, TcpParams.NODELAY.get());
            ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            UserTimeout.apply(ch);
            conn.attach(ch);
            peer = r.peer();
            if (!writeFully(ch, resp)) {
                throw new IOException("the connection response could not be written within 1 s");
            }
        } catch (IOException e) {
            state = ENDED;
            ConnectionEvent.emitInet(TcpParams.PROV, ConnectionEvent.REFUSED, null, peer, "accept failed: " + e.getMessage());
            engine.fail(Errno.ECONNABORTED, e.getMessage());
            throw new FabricException(Errno.ECONNABORTED, "accept failed: " + e.getMessage());
        }
        request = null;
        establish(r.order, null, r.header());
    }

    private void establish(WireOrder order, byte[] peerData, MemorySegment peerCmHeader) {
        conn.establish(order);
        if (conn.sameHost != null && conn.sameHost.verify(peerCmHeader)) {
            engine.sayReadsPeer();
        }
        try {
            local = (InetSocketAddress) conn.channel().getLocalAddress();
        } catch (IOException ignored) {
            // the address stays unknown; getName falls back to the info
        }
        state = CONNECTED;
        ConnectionEvent.emitInet(TcpParams.PROV, ConnectionEvent.ESTABLISHED, local, peer, "");
        if (key == null) {
            key = fabric.register(conn.channel(), SelectionKey.OP_READ, ep);
        }
        conn.setKey(key, fabric);
        engine.updateInterest();
        eq().postConnected(ep, context, peerData);
        engine.progress();
    }

    /** Advances the active side's CM exchange; returns the work done. */
    int step() {
        int s = state;
        if (s != CONNECTING && s != REQ_SENDING && s != REQ_SENT) {
            return 0;
        }
        SocketChannel ch = conn.channel();
        try {
            if (s == CONNECTING) {
                if (!ch.finishConnect()) {
                    return 0;
                }
                UserTimeout.apply(ch);
                state = REQ_SENDING;
                key.interestOps(SelectionKey.OP_WRITE);
            }
            if (state == REQ_SENDING) {
                ch.write(cmOut);
                if (cmOut.hasRemaining()) {
                    return 1;
                }
                state = REQ_SENT;
                key.interestOps(SelectionKey.OP_READ);
            }
            if (cmData == null) {
                int r = conn.readCm(cmHdr);
                if (r < 0) {
                    connectFailed(Errno.ECONNREFUSED, "peer closed the connection during setup", null);
                    return 1;
                }
                if (r == 0) {
                    return 0;
                }
                int n = CmMessage.decodeHeader(cmHdrSeg, CmMessage.TYPE_CONNRESP);
                if (n < 0) {
                    connectFailed(WireStatus.errno(n), WireStatus.describe(n), null);
                    return 1;
                }
                cmData = ByteBuffer.allocate(n);
            }
            if (cmData.hasRemaining()) {
                int r = conn.readCm(cmData);
                if (r < 0) {
                    connectFailed(Errno.ECONNREFUSED, "peer closed the connection during setup", null);
                    return 1;
                }
                if (r == 0) {
                    return 0;
                }
            }
            byte[] data = cmData.capacity() == 0 ? null : cmData.array();
            MemorySegment hdr = cmHdrSeg;
            if (CmMessage.type(hdr) == CmMessage.TYPE_NACK) {
                connectFailed(Errno.ECONNREFUSED, "connection rejected by the peer", data);
                return 1;
            }
            cmOut = null;
            establish(CmMessage.peerOrder(hdr), data, hdr);
            return 1;
        } catch (IOException e) {
            connectFailed(connectErrno(e), "connect failed: " + e.getMessage(), null);
        }
        return 1;
    }

    private void connectFailed(int errno, String reason, byte[] data) {
        LOG.log(System.Logger.Level.DEBUG, "connect to {0} failed: {1}", peer, reason);
        state = ENDED;
        ConnectionEvent.emitInet(TcpParams.PROV, ConnectionEvent.REFUSED, local, peer,
                reason + " (" + Errno.name(errno) + ")");
        eq().postError(ep, context, 0, errno, errno, data);
        engine.shutdown();
    }

    // =================================================================== teardown

    /** fi_shutdown: flushes, closes, and raises FI_SHUTDOWN; nothing before connect or after the end. */
    void shutdown() {
        int s = state;
        if (s == ENDED || s == IDLE) {
            return;
        }
        state = ENDED;
        ConnectionEvent.emitInet(TcpParams.PROV, ConnectionEvent.CLOSED, local, peer, "fi_shutdown");
        engine.shutdown();
        TcpEq eq = eq();
        if (eq != null) {
            eq.postShutdown(ep, context);
        }
    }

    /** The connection ended under the endpoint (peer close, bad input, send failure): tell the EQ. */
    void connectionEnded(int errno, String reason) {
        state = ENDED;
        LOG.log(System.Logger.Level.DEBUG, "connection to {0} ended ({1}): {2}", peer, Errno.name(errno), reason);
        ConnectionEvent.emitInet(TcpParams.PROV, ConnectionEvent.CLOSED, local, peer,
                errno == 0 ? reason : reason + " (" + Errno.name(errno) + ")");
        TcpEq eq = eq();
        if (eq == null) {
            return;
        }
        // a lost peer (closed or reset) is a plain SHUTDOWN; bad input from the peer is an error entry first
        if (errno != 0 && errno != Errno.ECONNRESET) {
            eq.postError(ep, context, 0, errno, errno, reason.getBytes(StandardCharsets.UTF_8));
        }
        eq.postShutdown(ep, context);
    }

    /** Endpoint close: ends the connection and drops a connection request that was never accepted. */
    void close() {
        boolean keyHandedOver = state == CONNECTED;
        if (state == CONNECTED) {
            ConnectionEvent.emitInet(TcpParams.PROV, ConnectionEvent.CLOSED, local, peer, "endpoint closed");
        }
        state = ENDED;
        engine.shutdown();
        SelectionKey k = key;
        if (k != null && !keyHandedOver) {
            // the connection flushes the key it was given; one still connecting (or refused) had none, and its
            // socket's descriptor would stay open until the selector next ran, which under manual progress may
            // be never: an application retrying a refused peer piled up thousands
            k.cancel();
            TcpFabric.flushCancelledKeys(k.selector());
        }
        if (request != null) {
            try {
                request.ch.close();
            } catch (IOException ignored) {
                // dropping the unaccepted request
            }
        }
    }

    // =================================================================== names

    byte[] localName() {
        InetSocketAddress l = local;
        if (l == null) {
            SocketChannel ch = conn.channel();
            if (ch != null) {
                try {
                    l = (InetSocketAddress) ch.getLocalAddress();
                } catch (IOException ignored) {
                    // fall through to the info's address
                }
            }
        }
        if (l != null) {
            return Sockaddr.of(l);
        }
        if (info.srcAddr != null) {
            return info.srcAddr.clone();
        }
        throw new FabricException(Errno.EADDRNOTAVAIL, "endpoint has no address until it connects or binds");
    }

    byte[] peerName() {
        InetSocketAddress p = peer;
        if (p == null || state != CONNECTED && state != ENDED) {
            throw new FabricException(Errno.ENOTCONN, "endpoint is not connected");
        }
        return Sockaddr.of(p);
    }

    // =================================================================== CM messages

    /** A connreq, connresp or nack with {@code data}, in a fresh buffer. Control path. */
    static ByteBuffer message(int type, byte[] data) {
        return message(type, data, false);
    }

    /** A CM message, with this process's same-host announcement when {@code announce} (TcpSameHost). */
    static ByteBuffer message(int type, byte[] data, boolean announce) {
        int len = data == null ? 0 : data.length;
        if (len > CmMessage.MAX_DATA_SIZE) {
            throw new FabricException(Errno.EINVAL, "CM data is " + len + " bytes; tcp carries at most "
                    + CmMessage.MAX_DATA_SIZE + " (FI_OPT_CM_DATA_SIZE)");
        }
        ByteBuffer b = ByteBuffer.allocateDirect(CmMessage.HEADER_SIZE + len);
        MemorySegment seg = MemorySegment.ofBuffer(b);
        int n = CmMessage.encode(seg, type, len == 0 ? null : MemorySegment.ofArray(data), len);
        if (n < 0) {
            throw new FabricException(Errno.EINVAL, "cannot encode CM message");
        }
        if (announce) {
            TcpSameHost.announce(seg);
        }
        b.limit(n);
        return b;
    }

    /**
     * Writes a whole small CM message on a non-blocking socket, waiting briefly if the socket buffer is full
     * (it never is for a fresh connection). Returns false if it could not be written within a second.
     */
    static boolean writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.onSpinWait();
            }
        }
        return true;
    }

    /**
     * The errno a failed connect reports, as libfabric's tcp reports the socket's: java.nio gives exceptions,
     * not errno values, so the kinds it distinguishes are mapped and its message read for the rest. After a
     * link flap the first connect can fail with EHOSTUNREACH (the neighbour entry is still failed), which an
     * application retries, where ECONNREFUSED would say nobody listens.
     */
    static int connectErrno(IOException e) {
        if (e instanceof NoRouteToHostException) {
            return Errno.EHOSTUNREACH;
        }
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (m.contains("Network is unreachable")) {
            return Errno.ENETUNREACH;
        }
        if (m.contains("timed out")) {
            return Errno.ETIMEDOUT;
        }
        if (m.contains("Connection reset")) {
            return Errno.ECONNRESET;
        }
        return Errno.ECONNREFUSED; // ConnectException, and what else ends a connect: nobody to talk to
    }

    /** This connection in a jfabric.EndpointStatistics sample (JFR's thread: plain reads only). */
    void sample(EndpointStatisticsEvent e) {
        InetSocketAddress l = local;
        e.endpoint = l != null ? Sockaddr.straddr(l) : info.srcAddr != null ? Sockaddr.straddr(info.srcAddr) : "-";
        e.connections = state == CONNECTED ? 1 : 0;
    }

    String describe() {
        return "state=" + state + ", peer=" + peer;
    }
}
