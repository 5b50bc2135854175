package io.jfabric.provider.tcp;

import io.jfabric.AddressVector;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.Endpoint;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.util.EndpointBindings;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.TaggedMsg;
import io.jfabric.OpFlags;
import io.jfabric.RmaIov;
import io.jfabric.RmaMsg;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.DataHeader;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The tcp FI_EP_MSG endpoint ({@code fi_endpoint}): connection management (connect with CM data, accept of
 * a CONNREQ, shutdown) and the data path (send/recv and their v/msg forms, senddata, inject, RMA write,
 * writedata, read, readv) over one {@link TcpConnection}. Mirrors {@code tcpx_ep.c}, {@code tcpx_msg.c},
 * {@code tcpx_rma.c}.
 *
 * <p>Completions go to the bound CQs (a transmit completion only with FI_COMPLETION when the CQ was bound
 * with FI_SELECTIVE_COMPLETION; never for inject), and bound counters count every completion. Errors are
 * always reported. FI_TRANSMIT_COMPLETE and FI_DELIVERY_COMPLETE both ask the peer for an ACK, as
 * libfabric does. Difference: RMA writes (except inject) always ask for the ACK and complete when the
 * target has placed the data, so a write the target refuses fails at the initiator. Data-path calls
 * return 0 or a negative errno: -EAGAIN while connecting or when the queue or CQ is full, -ENOTCONN
 * before connect or after shutdown.
 */
final class TcpEndpoint implements Endpoint, Progressable, ConnectionListener {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger(TcpParams.PROV);

    private static final int IDLE = 0;
    private static final int CONNECTING = 1;
    private static final int REQ_SENDING = 2;
    private static final int REQ_SENT = 3;
    private static final int CONNECTED = 4;
    private static final int ENDED = 5;

    private static final long SEND_FLAGS = OpFlags.SEND | OpFlags.MSG;
    private static final long RECV_FLAGS = OpFlags.RECV | OpFlags.MSG;
    /** Opened with FI_TAGGED: tagged calls work and the peer's tagged frames are accepted. */
    private final boolean tagged;
    private static final long TSEND_FLAGS = OpFlags.SEND | OpFlags.TAGGED;
    private static final long TRECV_FLAGS = OpFlags.RECV | OpFlags.TAGGED;
    private static final long WRITE_FLAGS = OpFlags.RMA | OpFlags.WRITE;
    private static final long READ_FLAGS = OpFlags.RMA | OpFlags.READ;
    private static final long REMOTE_WRITE_FLAGS = OpFlags.RMA | OpFlags.REMOTE_WRITE | OpFlags.REMOTE_CQ_DATA;
    private static final long ACK_FLAGS = OpFlags.TRANSMIT_COMPLETE | OpFlags.DELIVERY_COMPLETE | OpFlags.COMMIT_COMPLETE;

    private final TcpDomain domain;
    private final TcpFabric fabric;
    private final FabricInfo info;
    private final Object context;
    private final Lock lock;
    private final TcpConnection conn;
    private final long maxMsgSize;
    private final long txOpFlags;
    private final long rxOpFlags;

    private TcpCq txCq;
    private TcpCq rxCq;
    private boolean txSelective;
    private boolean rxSelective;
    private TcpCounter txCntr;
    private TcpCounter rxCntr;
    private TcpCounter rdCntr;
    private TcpCounter wrCntr;
    private TcpCounter remRdCntr;
    private TcpCounter remWrCntr;
    private TcpEq eq;

    private volatile int state = IDLE;
    private boolean enabled;
    private ConnRequest request;
    private ByteBuffer cmOut;
    private final ByteBuffer cmHdr = ByteBuffer.allocateDirect(CmMessage.HEADER_SIZE);
    private final MemorySegment cmHdrSeg = MemorySegment.ofBuffer(cmHdr);
    private ByteBuffer cmData;
    private SelectionKey key;
    private InetSocketAddress peer;
    private InetSocketAddress local;
    private volatile boolean closed;

    TcpEndpoint(TcpDomain domain, FabricInfo info, Object context) {
        this.domain = domain;
        this.fabric = domain.tcpFabric();
        this.info = info;
        this.context = context;
        this.lock = domain.needsLock() ? new ReentrantLock() : NoLock.INSTANCE;
        int txSize = (int) Math.max(1, Math.min(info.txAttr == null || info.txAttr.size == 0
                ? TcpParams.TX_SIZE.get() : info.txAttr.size, 1 << 16));
        int rxSize = (int) Math.max(1, Math.min(info.rxAttr == null || info.rxAttr.size == 0
                ? TcpParams.RX_SIZE.get() : info.rxAttr.size, 1 << 16));
        long max = TcpParams.MAX_MSG_SIZE.get();
        if (info.epAttr != null && info.epAttr.maxMsgSize > 0) {
            max = Math.min(max, info.epAttr.maxMsgSize);
        }
        this.maxMsgSize = max;
        this.tagged = (info.caps & io.jfabric.Caps.TAGGED) != 0;
        this.txOpFlags = info.txAttr == null ? 0 : info.txAttr.opFlags;
        this.rxOpFlags = info.rxAttr == null ? 0 : info.rxAttr.opFlags;
        this.conn = new TcpConnection(this, new EndpointRmaTarget(domain.mrs), txSize,
                rxSize, (int) TcpParams.PREFETCH.get(), max, tagged);
        if (info.handle instanceof ConnRequest r) {
            if (r.consumed) {
                throw new FabricException(Errno.EINVAL, "this connection request was already accepted or rejected");
            }
            r.consumed = true;
            this.request = r;
        }
    }

    // =================================================================== binding and enable

    @Override
    public void bind(CompletionQueue cq, long flags) {
        if (!(cq instanceof TcpCq c)) {
            throw new FabricException(Errno.EINVAL, "the CQ must come from the same tcp domain");
        }
        lock.lock();
        try {
            checkNotEnabled("bind a CQ");
            if ((flags & (BindFlags.TRANSMIT | BindFlags.RECV)) == 0) {
                throw new FabricException(Errno.EBADFLAGS, "bind a CQ with FI_TRANSMIT and/or FI_RECV");
            }
            if ((flags & BindFlags.TRANSMIT) != 0) {
                if (txCq != null) {
                    throw new FabricException(Errno.EINVAL, "a transmit CQ is already bound");
                }
                c.acquire();
                txCq = c;
                txSelective = (flags & BindFlags.SELECTIVE_COMPLETION) != 0;
                c.progress.add(this);
            }
            if ((flags & BindFlags.RECV) != 0) {
                if (rxCq != null) {
                    throw new FabricException(Errno.EINVAL, "a receive CQ is already bound");
                }
                c.acquire();
                rxCq = c;
                rxSelective = (flags & BindFlags.SELECTIVE_COMPLETION) != 0;
                if (txCq != c) {
                    c.progress.add(this);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void bind(EventQueue q) {
        if (!(q instanceof TcpEq e)) {
            throw new FabricException(Errno.EINVAL, "the EQ must come from the same tcp fabric");
        }
        lock.lock();
        try {
            if (eq != null) {
                throw new FabricException(Errno.EINVAL, "an EQ is already bound");
            }
            e.acquire();
            eq = e;
            e.progress.add(this);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void bind(AddressVector av) {
        throw new FabricException(Errno.EINVAL, "FI_EP_MSG endpoints take no address vector");
    }

    @Override
    public void bind(Counter counter, long flags) {
        if (!(counter instanceof TcpCounter c)) {
            throw new FabricException(Errno.EINVAL, "the counter must come from the same tcp domain");
        }
        lock.lock();
        try {
            checkNotEnabled("bind a counter");
            // every kind is checked before any is bound, so a refused bind changes nothing
            EndpointBindings.refuseSecondCounter(flags, BindFlags.TRANSMIT, txCntr, "FI_SEND");
            EndpointBindings.refuseSecondCounter(flags, BindFlags.RECV, rxCntr, "FI_RECV");
            EndpointBindings.refuseSecondCounter(flags, BindFlags.READ, rdCntr, "FI_READ");
            EndpointBindings.refuseSecondCounter(flags, BindFlags.WRITE, wrCntr, "FI_WRITE");
            EndpointBindings.refuseSecondCounter(flags, BindFlags.REMOTE_READ, remRdCntr, "FI_REMOTE_READ");
            EndpointBindings.refuseSecondCounter(flags, BindFlags.REMOTE_WRITE, remWrCntr, "FI_REMOTE_WRITE");
            if ((flags & BindFlags.TRANSMIT) != 0) {
                txCntr = acquired(c);
            }
            if ((flags & BindFlags.RECV) != 0) {
                rxCntr = acquired(c);
            }
            if ((flags & BindFlags.READ) != 0) {
                rdCntr = acquired(c);
            }
            if ((flags & BindFlags.WRITE) != 0) {
                wrCntr = acquired(c);
            }
            if ((flags & BindFlags.REMOTE_READ) != 0) {
                remRdCntr = acquired(c);
            }
            if ((flags & BindFlags.REMOTE_WRITE) != 0) {
                remWrCntr = acquired(c);
            }
            c.progress.add(this);
        } finally {
            lock.unlock();
        }
    }

    private static TcpCounter acquired(TcpCounter c) {
        c.acquire();
        return c;
    }

    private void checkNotEnabled(String what) {
        if (enabled) {
            throw new FabricException(Errno.EINVAL, "cannot " + what + " after fi_enable");
        }
    }

    @Override
    public void enable() {
        lock.lock();
        try {
            if (txCq == null && rxCq == null) {
                throw new FabricException(Errno.ENOCQ, "bind a CQ (FI_TRANSMIT and/or FI_RECV) before fi_enable");
            }
            if (eq == null) {
                throw new FabricException(Errno.ENOEQ, "FI_EP_MSG endpoints need an EQ bound before fi_enable");
            }
            enabled = true;
        } finally {
            lock.unlock();
        }
    }

    // =================================================================== connection management

    @Override
    public void connect(byte[] addr, byte[] data) {
        lock.lock();
        try {
            if (!enabled) {
                enable();
            }
            if (state != IDLE || request != null) {
                throw new FabricException(Errno.EISCONN, "fi_connect may be called once, on a fresh endpoint");
            }
            byte[] dest = addr != null ? addr : info.destAddr;
            if (dest == null) {
                throw new FabricException(Errno.EINVAL, "no destination: pass an address or set info.destAddr");
            }
            InetSocketAddress target = SockAddr.decode(dest);
            cmOut = CmWriter.build(CmMessage.TYPE_CONNREQ, data);
            SocketChannel ch = SocketChannel.open(target.getAddress() instanceof java.net.Inet6Address
                    ? java.net.StandardProtocolFamily.INET6 : java.net.StandardProtocolFamily.INET);
            try {
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, TcpParams.NODELAY.get());
                ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
                if (info.srcAddr != null) {
                    InetSocketAddress src = SockAddr.decode(info.srcAddr);
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
                key = fabric.register(ch, done ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT, this);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            controlStep();
        } catch (IOException e) {
            throw new FabricException(ConnectErrors.errno(e), "cannot connect: " + e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void accept(byte[] data) {
        lock.lock();
        try {
            ConnRequest r = request;
            if (r == null || state != IDLE) {
                throw new FabricException(Errno.EINVAL, "fi_accept needs an endpoint opened from a CONNREQ's info,"
                        + " accepted once");
            }
            if (!enabled) {
                enable();
            }
            ByteBuffer resp = CmWriter.build(CmMessage.TYPE_CONNRESP, data);
            SocketChannel ch = r.ch;
            try {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, TcpParams.NODELAY.get());
                ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
                UserTimeout.apply(ch);
                conn.attach(ch);
                peer = r.peer();
                if (!CmWriter.writeFully(ch, resp)) {
                    throw new IOException("the connection response could not be written within 1 s");
                }
            } catch (IOException e) {
                state = ENDED;
                conn.fail(Errno.ECONNABORTED, e.getMessage());
                throw new FabricException(Errno.ECONNABORTED, "accept failed: " + e.getMessage());
            }
            request = null;
            establish(r.order, null);
        } finally {
            lock.unlock();
        }
    }

    private void establish(io.jfabric.provider.tcp.wire.WireOrder order, byte[] peerData) {
        conn.establish(order);
        try {
            local = (InetSocketAddress) conn.channel().getLocalAddress();
        } catch (IOException ignored) {
            // the address stays unknown; getName falls back to the info
        }
        state = CONNECTED;
        if (key == null) {
            key = fabric.register(conn.channel(), SelectionKey.OP_READ, this);
        }
        conn.setKey(key, fabric);
        eq.postConnected(this, context, peerData);
        conn.progress();
    }

    @Override
    public int progressControl() {
        if (!lock.tryLock()) {
            return 0;
        }
        try {
            return controlStep();
        } finally {
            lock.unlock();
        }
    }

    /** Advances the active side's CM exchange; called with the lock held. */
    private int controlStep() {
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
                    connectFailed(io.jfabric.provider.tcp.wire.WireStatus.errno(n),
                            io.jfabric.provider.tcp.wire.WireStatus.describe(n), null);
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
            establish(CmMessage.peerOrder(hdr), data);
            return 1;
        } catch (IOException e) {
            connectFailed(ConnectErrors.errno(e), "connect failed: " + e.getMessage(), null);
        }
        return 1;
    }

    private void connectFailed(int errno, String reason, byte[] data) {
        LOG.log(System.Logger.Level.DEBUG, "connect to {0} failed: {1}", peer, reason);
        state = ENDED;
        eq.postError(this, context, 0, errno, errno, data);
        conn.shutdown();
    }

    @Override
    public void shutdown(long flags) {
        lock.lock();
        try {
            int s = state;
            if (s == ENDED || s == IDLE) {
                return;
            }
            state = ENDED;
            conn.shutdown();
            if (eq != null) {
                eq.postShutdown(this, context);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public byte[] getName() {
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
            return SockAddr.encode(l);
        }
        if (info.srcAddr != null) {
            return info.srcAddr.clone();
        }
        throw new FabricException(Errno.EADDRNOTAVAIL, "endpoint has no address until it connects or binds");
    }

    @Override
    public void setName(byte[] addr) {
        throw new FabricException(Errno.ENOSYS, "set the source address through info.srcAddr when opening the endpoint");
    }

    @Override
    public byte[] getPeer() {
        InetSocketAddress p = peer;
        if (p == null || state != CONNECTED && state != ENDED) {
            throw new FabricException(Errno.ENOTCONN, "endpoint is not connected");
        }
        return SockAddr.encode(p);
    }

    @Override
    public long getOpt(EndpointOption option) {
        return switch (option) {
            case CM_DATA_SIZE -> CmMessage.MAX_DATA_SIZE;
            case TX_SIZE -> info.txAttr == null ? 0 : info.txAttr.size;
            case RX_SIZE -> info.rxAttr == null ? 0 : info.rxAttr.size;
            default -> throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " is not supported by tcp");
        };
    }

    @Override
    public void setOpt(EndpointOption option, long value) {
        throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " cannot be set on tcp");
    }

    @Override
    public int cancel(Object ctx) {
        lock.lock();
        try {
            return conn.cancelRecv(ctx) ? 0 : -Errno.ENOENT;
        } finally {
            lock.unlock();
        }
    }

    // =================================================================== progress

    /** The connection, for tests that look at its system calls. */
    TcpConnection connection() {
        return conn;
    }

    @Override
    public int progressData() {
        if (!lock.tryLock()) {
            return 0;
        }
        try {
            if (state == CONNECTED) {
                return conn.progress();
            }
            return conn.flushAfterFailure();
        } finally {
            lock.unlock();
        }
    }

    // =================================================================== messages

    @Override
    public int send(MemorySegment buf, MemoryRegion desc, long destAddr, Object ctx) {
        return postSend(null, buf, 1, txOpFlags, 0, false, ctx, false);
    }

    @Override
    public int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object ctx) {
        return postSend(iov, null, count, txOpFlags, 0, false, ctx, false);
    }

    @Override
    public int sendmsg(Msg msg, long flags) {
        return postSend(msg.iov, null, msg.iovCount, flags, msg.data, (flags & OpFlags.REMOTE_CQ_DATA) != 0,
                msg.context, (flags & OpFlags.INJECT) != 0);
    }

    @Override
    public int inject(MemorySegment buf, long destAddr) {
        return postSend(null, buf, 1, 0, 0, false, null, true);
    }

    @Override
    public int senddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, Object ctx) {
        return postSend(null, buf, 1, txOpFlags, data, true, ctx, false);
    }

    @Override
    public int injectdata(MemorySegment buf, long data, long destAddr) {
        return postSend(null, buf, 1, 0, data, true, null, true);
    }

    @Override
    public int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object ctx) {
        return postRecv(null, buf, 1, rxOpFlags, ctx);
    }

    @Override
    public int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object ctx) {
        return postRecv(iov, null, count, rxOpFlags, ctx);
    }

    @Override
    public int recvmsg(Msg msg, long flags) {
        return postRecv(msg.iov, null, msg.iovCount, flags, msg.context);
    }

    // =================================================================== tagged messages
    // libfabric 1.17 tcp carries these as op_msg frames with TCPX_TAGGED and the 8-byte tag extension; it
    // offers them only on its shared-receive-context info, jfabric on the endpoint itself (see TcpProvider).

    @Override
    public int tsend(MemorySegment buf, MemoryRegion desc, long destAddr, long tag, Object ctx) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postSend(null, buf, 1, txOpFlags, 0, false, ctx, false, true, tag);
    }

    @Override
    public int tsendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag, Object ctx) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postSend(iov, null, count, txOpFlags, 0, false, ctx, false, true, tag);
    }

    @Override
    public int tsendmsg(TaggedMsg msg, long flags) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postSend(msg.iov, null, msg.iovCount, flags, msg.data, (flags & OpFlags.REMOTE_CQ_DATA) != 0,
                msg.context, (flags & OpFlags.INJECT) != 0, true, msg.tag);
    }

    @Override
    public int tinject(MemorySegment buf, long destAddr, long tag) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postSend(null, buf, 1, 0, 0, false, null, true, true, tag);
    }

    @Override
    public int tsenddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long tag, Object ctx) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postSend(null, buf, 1, txOpFlags, data, true, ctx, false, true, tag);
    }

    @Override
    public int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postSend(null, buf, 1, 0, data, true, null, true, true, tag);
    }

    @Override
    public int trecv(MemorySegment buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object ctx) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postRecv(null, buf, 1, rxOpFlags, ctx, true, tag, ignore);
    }

    @Override
    public int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag, long ignore,
                      Object ctx) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postRecv(iov, null, count, rxOpFlags, ctx, true, tag, ignore);
    }

    @Override
    public int trecvmsg(TaggedMsg msg, long flags) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        return postRecv(msg.iov, null, msg.iovCount, flags, msg.context, true, msg.tag, msg.ignore);
    }

    private int txState() {
        int s = state;
        if (s == CONNECTED) {
            return 0;
        }
        if (s == CONNECTING || s == REQ_SENDING || s == REQ_SENT) {
            return -Errno.EAGAIN;
        }
        return -Errno.ENOTCONN;
    }

    private static MemorySegment seg(MemorySegment[] iov, MemorySegment single, int i) {
        return iov == null ? single : iov[i];
    }

    /** Sums the iov lengths; negative errno when an iov is missing or the count is out of range. */
    private static long total(MemorySegment[] iov, MemorySegment single, int count) {
        if (count < 0 || count > DataHeader.IOV_LIMIT || (iov == null && single == null && count > 0)) {
            return -Errno.EINVAL;
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            MemorySegment s = seg(iov, single, i);
            if (s == null) {
                return -Errno.EINVAL;
            }
            total += s.byteSize();
        }
        return total;
    }

    private int postSend(MemorySegment[] iov, MemorySegment single, int count, long flags, long data,
                         boolean hasData, Object ctx, boolean inject) {
        return postSend(iov, single, count, flags, data, hasData, ctx, inject, false, 0);
    }

    private int postSend(MemorySegment[] iov, MemorySegment single, int count, long flags, long data,
                         boolean hasData, Object ctx, boolean inject, boolean tagged, long tag) {
        lock.lock();
        try {
            int st = txState();
            if (st != 0) {
                return st;
            }
            long total = total(iov, single, count);
            if (total < 0) {
                return (int) total;
            }
            if (total > maxMsgSize || (inject && total > TcpParams.INJECT_SIZE)) {
                return -Errno.EMSGSIZE;
            }
            TxEntry e = conn.takeTx();
            if (e == null) {
                return -Errno.EAGAIN;
            }
            int wflags = hasData ? DataHeader.FLAG_REMOTE_CQ_DATA : 0;
            if (tagged) {
                wflags |= DataHeader.FLAG_TAGGED;
            }
            if (!inject && (flags & ACK_FLAGS) != 0) {
                wflags |= DataHeader.FLAG_DELIVERY_COMPLETE;
                e.needAck = true;
            }
            int hl = DataHeader.encodeMsg(e.hdr, conn.order(), wflags, data, tag, total);
            attachPayload(e, iov, single, count, hl, total);
            e.kind = TxEntry.KIND_SEND;
            e.context = ctx;
            e.cqFlags = tagged ? TSEND_FLAGS : SEND_FLAGS;
            e.len = total;
            e.completion = !inject && (!txSelective || (flags & OpFlags.COMPLETION) != 0);
            if (!reserveTx(e)) {
                conn.releaseTx(e);
                return -Errno.EAGAIN;
            }
            conn.submit(e);
            return 0;
        } finally {
            lock.unlock();
        }
    }

    /** Small payloads are copied after the header (one buffer, reusable at once); larger ones go zero-copy. */
    private static void attachPayload(TxEntry e, MemorySegment[] iov, MemorySegment single, int count, int hl,
                                      long total) {
        e.bufs[0] = e.hdrView;
        if (total <= TxEntry.INLINE_LIMIT) {
            long off = hl;
            for (int i = 0; i < count; i++) {
                MemorySegment s = seg(iov, single, i);
                MemorySegment.copy(s, 0, e.hdr, off, s.byteSize());
                off += s.byteSize();
            }
            e.hdrView.clear().limit((int) off);
            e.bufCount = 1;
        } else {
            e.hdrView.clear().limit(hl);
            int n = 1;
            for (int i = 0; i < count; i++) {
                MemorySegment s = seg(iov, single, i);
                if (s.byteSize() > 0) {
                    e.bufs[n++] = e.views[i].of(s);
                }
            }
            e.bufCount = n;
        }
        e.remaining = hl + total;
    }

    private int postRecv(MemorySegment[] iov, MemorySegment single, int count, long flags, Object ctx) {
        return postRecv(iov, single, count, flags, ctx, false, 0, 0);
    }

    private int postRecv(MemorySegment[] iov, MemorySegment single, int count, long flags, Object ctx,
                         boolean tagged, long tag, long ignore) {
        lock.lock();
        try {
            if (state == ENDED || closed) {
                return -Errno.ENOTCONN;
            }
            long total = total(iov, single, count);
            if (total < 0) {
                return (int) total;
            }
            RxEntry e = conn.takeRx();
            if (e == null) {
                return -Errno.EAGAIN;
            }
            for (int i = 0; i < count; i++) {
                e.iov[i] = seg(iov, single, i);
            }
            e.iovCount = count;
            e.capacity = total;
            e.context = ctx;
            e.tagged = tagged;
            e.tag = tag;
            e.ignore = ignore;
            e.completion = !rxSelective || (flags & OpFlags.COMPLETION) != 0;
            if (e.completion && rxCq != null) {
                if (!rxCq.tryReserve()) {
                    conn.releaseRx(e);
                    return -Errno.EAGAIN;
                }
                e.reserved = true;
            }
            conn.postRecv(e);
            if (!domain.manualProgress()) {
                fabric.wakeup();
            }
            return 0;
        } finally {
            lock.unlock();
        }
    }

    // =================================================================== RMA

    @Override
    public int read(MemorySegment buf, MemoryRegion desc, long srcAddr, long addr, long key, Object ctx) {
        return postRma(DataHeader.OP_READ_REQ, null, buf, 1, null, 0, addr, key, txOpFlags, 0, false, ctx, false);
    }

    @Override
    public int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                     Object ctx) {
        return postRma(DataHeader.OP_READ_REQ, iov, null, count, null, 0, addr, key, txOpFlags, 0, false, ctx, false);
    }

    @Override
    public int readmsg(RmaMsg msg, long flags) {
        return postRma(DataHeader.OP_READ_REQ, msg.iov, null, msg.iovCount, msg.rmaIov, msg.rmaIovCount, 0, 0,
                flags, 0, false, msg.context, false);
    }

    @Override
    public int write(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key, Object ctx) {
        return postRma(DataHeader.OP_WRITE, null, buf, 1, null, 0, addr, key, txOpFlags, 0, false, ctx, false);
    }

    @Override
    public int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                      Object ctx) {
        return postRma(DataHeader.OP_WRITE, iov, null, count, null, 0, addr, key, txOpFlags, 0, false, ctx, false);
    }

    @Override
    public int writemsg(RmaMsg msg, long flags) {
        return postRma(DataHeader.OP_WRITE, msg.iov, null, msg.iovCount, msg.rmaIov, msg.rmaIovCount, 0, 0, flags,
                msg.data, (flags & OpFlags.REMOTE_CQ_DATA) != 0, msg.context, (flags & OpFlags.INJECT) != 0);
    }

    @Override
    public int writedata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object ctx) {
        return postRma(DataHeader.OP_WRITE, null, buf, 1, null, 0, addr, key, txOpFlags, data, true, ctx, false);
    }

    @Override
    public int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        return postRma(DataHeader.OP_WRITE, null, buf, 1, null, 0, addr, key, 0, 0, false, null, true);
    }

    @Override
    public int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        return postRma(DataHeader.OP_WRITE, null, buf, 1, null, 0, addr, key, 0, data, true, null, true);
    }

    /**
     * Posts an RMA write or read. With {@code rma == null} the remote side is one iov ({@code addr},
     * local total length, {@code key}); otherwise {@code rmaCount} iovs whose lengths must add up to the
     * local total.
     */
    private int postRma(int op, MemorySegment[] iov, MemorySegment single, int count, RmaIov[] rma, int rmaCount,
                        long addr, long key, long flags, long data, boolean hasData, Object ctx, boolean inject) {
        lock.lock();
        try {
            int st = txState();
            if (st != 0) {
                return st;
            }
            long total = total(iov, single, count);
            if (total < 0) {
                return (int) total;
            }
            if (rma != null) {
                if (rmaCount < 1 || rmaCount > DataHeader.IOV_LIMIT) {
                    return -Errno.EINVAL;
                }
                long rt = 0;
                for (int i = 0; i < rmaCount; i++) {
                    if (rma[i] == null || rma[i].len < 0) {
                        return -Errno.EINVAL;
                    }
                    rt += rma[i].len;
                }
                if (rt != total) {
                    return -Errno.EINVAL;
                }
            }
            if (total > maxMsgSize || (inject && total > TcpParams.INJECT_SIZE)) {
                return -Errno.EMSGSIZE;
            }
            TxEntry e = conn.takeTx();
            if (e == null) {
                return -Errno.EAGAIN;
            }
            int cnt = rma == null ? 1 : rmaCount;
            int wflags = hasData && op == DataHeader.OP_WRITE ? DataHeader.FLAG_REMOTE_CQ_DATA : 0;
            // every non-inject write asks for the ACK, so a write the target refuses (bad key, range or
            // access) fails at the initiator instead of completing once written (libfabric: only with
            // FI_DELIVERY_COMPLETE)
            if (op == DataHeader.OP_WRITE && !inject) {
                wflags |= DataHeader.FLAG_DELIVERY_COMPLETE;
                e.needAck = true;
            }
            int hl = DataHeader.encodeRma(e.hdr, conn.order(), op, wflags, data, cnt,
                    op == DataHeader.OP_WRITE ? total : 0);
            for (int i = 0; i < cnt; i++) {
                if (rma == null) {
                    DataHeader.putRmaIov(e.hdr, conn.order(), 0, addr, total, key);
                } else {
                    DataHeader.putRmaIov(e.hdr, conn.order(), i, rma[i].addr, rma[i].len, rma[i].key);
                }
            }
            e.context = ctx;
            e.len = total;
            e.completion = !inject && (!txSelective || (flags & OpFlags.COMPLETION) != 0);
            if (!reserveTx(e)) {
                conn.releaseTx(e);
                return -Errno.EAGAIN;
            }
            if (op == DataHeader.OP_WRITE) {
                e.kind = TxEntry.KIND_WRITE;
                e.cqFlags = WRITE_FLAGS;
                attachPayload(e, iov, single, count, hl, total);
            } else {
                e.kind = TxEntry.KIND_READ;
                e.cqFlags = READ_FLAGS;
                for (int i = 0; i < count; i++) {
                    e.readIov[i] = seg(iov, single, i);
                }
                e.readIovCount = count;
                e.hdrView.clear().limit(hl);
                e.bufs[0] = e.hdrView;
                e.bufCount = 1;
                e.remaining = hl;
            }
            conn.submit(e);
            return 0;
        } finally {
            lock.unlock();
        }
    }

    /** FI_RM_ENABLED: an operation that will write a completion first takes a CQ slot, or gets -EAGAIN. */
    private boolean reserveTx(TxEntry e) {
        if (e.completion && txCq != null) {
            if (!txCq.tryReserve()) {
                e.completion = false;
                return false;
            }
            e.reserved = true;
        }
        return true;
    }

    // =================================================================== completions (ConnectionListener)

    @Override
    public void txDone(TxEntry e) {
        TcpCounter c = switch (e.kind) {
            case TxEntry.KIND_WRITE -> wrCntr;
            case TxEntry.KIND_READ -> rdCntr;
            default -> txCntr;
        };
        if (c != null) {
            c.increment();
        }
        if (e.completion && txCq != null) {
            txCq.writeFrom(e.reserved, e.context, e.cqFlags, e.len, 0, 0, 0, Fabrics.ADDR_NOTAVAIL);
            e.reserved = false;
        }
    }

    @Override
    public void txFailed(TxEntry e, int errno) {
        TcpCounter c = switch (e.kind) {
            case TxEntry.KIND_WRITE -> wrCntr;
            case TxEntry.KIND_READ -> rdCntr;
            default -> txCntr;
        };
        if (c != null) {
            c.incrementError();
        }
        if (txCq != null) {
            txCq.writeError(e.reserved, e.context, e.cqFlags, e.len, 0, 0, 0, 0, errno, errno, null);
            e.reserved = false;
        }
    }

    @Override
    public void rxDone(RxEntry e, long len, long truncated, boolean hasData, long data) {
        if (truncated > 0) {
            if (rxCntr != null) {
                rxCntr.incrementError();
            }
            if (rxCq != null) {
                rxCq.writeError(e.reserved, e.context, e.tagged ? TRECV_FLAGS : RECV_FLAGS, len, 0, 0, e.rxTag,
                        truncated, Errno.ETRUNC, Errno.ETRUNC, null);
                e.reserved = false;
            }
            return;
        }
        if (rxCntr != null) {
            rxCntr.increment();
        }
        if (e.completion && rxCq != null) {
            long flags = e.tagged ? TRECV_FLAGS : RECV_FLAGS;
            if (hasData) {
                flags |= OpFlags.REMOTE_CQ_DATA;
            }
            rxCq.writeFrom(e.reserved, e.context, flags, len,
                    e.iovCount > 0 && e.iov[0].isNative() ? e.iov[0].address() : 0, data, e.rxTag,
                    Fabrics.ADDR_NOTAVAIL);
            e.reserved = false;
        }
    }

    @Override
    public void rxFailed(RxEntry e, int errno) {
        if (rxCntr != null) {
            rxCntr.incrementError();
        }
        if (rxCq != null) {
            rxCq.writeError(e.reserved, e.context, e.tagged ? TRECV_FLAGS : RECV_FLAGS, 0, 0, 0, e.tag, 0, errno,
                    errno, null);
            e.reserved = false;
        }
    }

    @Override
    public void remoteWrite(long len, boolean hasData, long data) {
        if (remWrCntr != null) {
            remWrCntr.increment();
        }
        if (hasData && rxCq != null) {
            rxCq.write(null, REMOTE_WRITE_FLAGS, len, 0, data, 0);
        }
    }

    @Override
    public void remoteRead(long len) {
        if (remRdCntr != null) {
            remRdCntr.increment();
        }
    }

    @Override
    public void connectionEnded(int errno, String reason) {
        state = ENDED;
        LOG.log(System.Logger.Level.DEBUG, "connection to {0} ended ({1}): {2}", peer, Errno.name(errno), reason);
        if (eq == null) {
            return;
        }
        // a lost peer (closed or reset) is a plain SHUTDOWN; bad input from the peer is an error entry first
        if (errno != 0 && errno != Errno.ECONNRESET) {
            eq.postError(this, context, 0, errno, errno, reason.getBytes(StandardCharsets.UTF_8));
        }
        eq.postShutdown(this, context);
    }

    // =================================================================== close

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            state = ENDED;
            conn.shutdown();
            if (request != null) {
                try {
                    request.ch.close();
                } catch (IOException ignored) {
                    // dropping the unaccepted request
                }
            }
            unbindAll();
        } finally {
            lock.unlock();
        }
        domain.childClosed(this);
    }

    private void unbindAll() {
        if (txCq != null) {
            txCq.progress.remove(this);
            txCq.release();
        }
        if (rxCq != null) {
            rxCq.progress.remove(this);
            rxCq.release();
        }
        for (TcpCounter c : new TcpCounter[] {txCntr, rxCntr, rdCntr, wrCntr, remRdCntr, remWrCntr}) {
            if (c != null) {
                c.progress.remove(this);
                c.release();
            }
        }
        if (eq != null) {
            eq.progress.remove(this);
            eq.release();
        }
    }

    /** State for failure messages in tests and logs. */
    String describe() {
        return "TcpEndpoint[state=" + state + ", peer=" + peer + ", " + conn.describe() + "]";
    }

    @Override
    public String toString() {
        return describe();
    }
}
