package io.jfabric.netty;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.netty.FrameLink.RxSlot;
import io.jfabric.netty.FrameLink.TxSlot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.concurrent.Future;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.util.concurrent.TimeUnit;

/**
 * A byte stream between two jfabric endpoints, the jfabric counterpart of a TCP socket channel: it runs the
 * stream protocol of {@link Frame} over an RDM endpoint of its own ({@link FrameLink}), so it works over any RDM
 * provider (shm, tcp;ofi_rxm, verbs;ofi_rxm, libfabric:...).
 *
 * <p>A client dials a {@link JfabricServerChannel}'s address: it sends CONNECT with its own endpoint's name, and the
 * server's new child channel, once registered on its loop, opens its own endpoint and answers ACCEPT from there.
 * Direct writes of 4 KiB or more, and composites of direct buffers, go out in place where the provider needs no
 * local descriptor (shm, tcp;ofi_rxm: no FI_MR_LOCAL); everything else is copied once into a registered slot, small
 * writes packed together.
 */
public final class JfabricSocketChannel extends AbstractChannel implements DuplexChannel {
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** Below this a write is copied and packed with its neighbours; above it a direct buffer is sent in place. */
    private static final int IN_PLACE_MIN = 4096;
    /**
     * From this many bytes a received frame goes to the pipeline in its own slot ({@link SlotByteBuf}) while a
     * spare slot is free; smaller ones are copied into the allocator's buffers, which costs less than the slot.
     */
    private static final int LEND_MIN = Integer.getInteger("jfabric.netty.lendMin", 4096);
    /** How many CQ polls a write makes at most to find the peer's closing FIN before it sends. */
    private static final int PEER_CLOSE_POLLS = 16;

    private enum State { OPEN, CONNECTING, ACTIVE, CLOSED }

    private final JfabricChannelConfig config = new JfabricChannelConfig(this);
    private State state = State.OPEN;
    private final String acceptProvider;
    private final byte[] acceptPeer;
    private final int acceptWindow;
    private final int acceptSlotSize;
    /** The FI_CONNREQ a connected provider's child accepts, else null. */
    private final FabricInfo acceptRequest;
    /** The connection's EQ events on a connected (FI_EP_MSG) provider, else null. */
    private CmEvents cm;
    private volatile JfabricAddress local;
    private volatile JfabricAddress remote;
    private JfabricAddress bindTo;
    private JfabricIoHandler handler;
    private final LoopRegistration registration = new LoopRegistration();
    private FrameStream stream;
    /** The endpoint this client's CONNECT left from, until the accepted side answers; null if none. */
    private Dialer dialer;
    private ChannelPromise connectPromise;
    private ConnectDeadline connectDeadline;
    /** The periodic {@link FrameStream#probe} of a stream whose provider reports no peer failure, or null. */
    private Future<?> probes;
    private final StreamEvents events = new StreamEvents();
    private final SlotPacker packer = new SlotPacker();
    /** In-place sends that gathered a composite's components; loop thread only (tests read it there). */
    private long gatheredSends;
    private boolean readPending;
    private volatile boolean inputShutdown;
    private volatile boolean outputShutdown;
    private boolean inputShutdownSeen;
    private boolean peerClosed;

    /** A client channel; {@link io.netty.bootstrap.Bootstrap} makes it with {@code channel(JfabricSocketChannel.class)}. */
    public JfabricSocketChannel() {
        super(null);
        acceptProvider = null;
        acceptPeer = null;
        acceptWindow = 0;
        acceptSlotSize = 0;
        acceptRequest = null;
    }

    /** A channel {@code parent} accepted from the client whose endpoint is {@code peerName}. */
    JfabricSocketChannel(JfabricServerChannel parent, String provider, byte[] peerName, int peerWindow, int peerSlotSize) {
        this(parent, provider, peerName, peerWindow, peerSlotSize, null);
    }

    /** A channel {@code parent} took from a connected provider's connection request {@code request}. */
    JfabricSocketChannel(JfabricServerChannel parent, String provider, FabricInfo request, int peerWindow,
            int peerSlotSize) {
        this(parent, provider, request.destAddr, peerWindow, peerSlotSize, request);
    }

    private JfabricSocketChannel(JfabricServerChannel parent, String provider, byte[] peerName, int peerWindow,
            int peerSlotSize, FabricInfo request) {
        super(parent);
        acceptProvider = provider;
        acceptPeer = peerName;
        acceptWindow = peerWindow;
        acceptSlotSize = peerSlotSize;
        acceptRequest = request;
        remote = JfabricAddress.of(provider, peerName);
    }

    @Override
    public JfabricChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public boolean isOpen() {
        return state != State.CLOSED;
    }

    @Override
    public boolean isActive() {
        return state == State.ACTIVE;
    }

    @Override
    public JfabricAddress localAddress() {
        return (JfabricAddress) super.localAddress();
    }

    @Override
    public JfabricAddress remoteAddress() {
        return (JfabricAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return LoopRegistration.compatible(loop, JfabricUnsafe.class);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new JfabricUnsafe();
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        registration.register(eventLoop(), (JfabricUnsafe) unsafe(), promise);
    }

    @Override
    protected void doDeregister() {
        registration.cancel();
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        bindTo = HostPort.bindAddress(localAddress, config.getProvider());
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    private void closeDialer() {
        if (dialer != null) {
            dialer.close();
            dialer = null;
        }
    }

    @Override
    protected void doClose() {
        State was = state;
        state = State.CLOSED;
        closeDialer();
        if (connectDeadline != null) {
            connectDeadline.cancel();
        }
        if (probes != null) {
            probes.cancel(false);
        }
        ChannelPromise p = connectPromise;
        if (p != null) {
            connectPromise = null;
            p.tryFailure(new ClosedChannelException());
        }
        FrameStream s = stream;
        if (s != null) {
            if (was == State.ACTIVE && !peerClosed && !s.peerClosed && !events.broken) {
                s.sendFin(true);
            }
            if (handler != null) {
                handler.linger(s);
            } else {
                s.link.close();
            }
        }
    }

    @Override
    protected void doBeginRead() {
        if (state == State.CLOSED) {
            return;
        }
        readPending = true;
        if (handler != null) {
            handler.wakeup();
        }
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf) {
            return msg;
        }
        throw new UnsupportedOperationException("a jfabric stream writes ByteBufs only, not "
                + (msg == null ? "null" : msg.getClass().getName()) + " (no file regions: there is no descriptor to send from)");
    }

    @Override
    protected void doShutdownOutput() {
        outputShutdown = true;
        if (stream != null && state == State.ACTIVE) {
            stream.sendFin(false);
        }
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        FrameStream s = stream;
        // the peer's close may wait unread in the CQ (a handler that blocked its loop); a TCP write would fail.
        // A provider may complete one arrival per poll (tcp reads its socket as the CQ is read): poll while it
        // delivers, up to a window's worth, so the FIN behind the peer's last DATA frames is seen too
        for (int i = 0; i < PEER_CLOSE_POLLS && !s.peerClosed && s.poll() > 0; i++) {
            // each poll hands what arrived to the stream
        }
        if (s.peerClosed) {
            throw new IOException("jfabric peer " + s.peerText() + " closed the stream; it reads nothing more");
        }
        LoopDomain loop = s.link.loop;
        int max = s.maxPayload();
        for (;;) {
            Object msg = in.current();
            if (msg == null) {
                return;
            }
            if (((ByteBuf) msg).readableBytes() == 0) {
                in.remove();
                continue;
            }
            TxSlot slot = s.takeDataSlot();
            if (slot == null) {
                return;
            }
            // small buffers (an HTTP/2 frame header, a length prefix) are copied after the frame header; the large
            // direct buffer behind them, or the composite of direct ones, goes in place, in the same frame
            int prefix = packer.pack(in, slot, max, IN_PLACE_MIN, s.link.gatherParts, loop.payloads);
            ByteBuf big = packer.stoppedAt();
            int sent;
            int rc;
            int registration = -1;
            int n = big == null ? 0 : Math.min(big.readableBytes(), max - prefix);
            if (big != null && (!loop.needsLocalDesc || (registration = loop.registrations.acquire(big, n)) >= 0)) {
                int parts = packer.gathered();
                if (parts == 0) {
                    slot.iov[1] = loop.payloads.at(big.memoryAddress() + big.readerIndex(), n);
                    parts = 1;
                }
                rc = s.sendInPlace(slot, prefix, n, parts, registration, big.retain());
                if (rc != 0) {
                    big.release();
                } else if (parts > 1) {
                    gatheredSends++;
                }
                sent = prefix + n;
            } else {
                sent = big == null ? prefix : packer.pack(in, slot, max, 0, 0, null);
                rc = s.sendCopied(slot, sent);
            }
            if (rc == -Errno.EAGAIN) {
                events.retryWrite = true;
                return;
            }
            if (rc != 0) {
                throw new IOException("jfabric peer " + s.peerText() + " failed: a send was refused: "
                        + Errno.strerror(-rc) + " (errno " + -rc + ")");
            }
            in.removeBytes(sent);
        }
    }

    /**
     * How many sends so far gathered several components of a composite in place; -1 where the stream's link gathers
     * none (a provider that wants local descriptors, or one whose iov limit leaves room for one payload buffer).
     * Loop thread only.
     */
    long gatheredSends() {
        FrameStream st = stream;
        return st == null || st.link.gatherParts < 2 ? -1 : gatheredSends;
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown;
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !isActive() && state != State.OPEN && state != State.CONNECTING;
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown() || !isActive();
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        if (eventLoop().inEventLoop()) {
            shutdownInput0(promise);
        } else {
            eventLoop().execute(() -> shutdownInput0(promise));
        }
        return promise;
    }

    private void shutdownInput0(ChannelPromise promise) {
        inputShutdown = true;
        if (stream != null) {
            while (stream.hasInbound()) {
                stream.releaseHead();
            }
        }
        promise.setSuccess();
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        if (eventLoop().inEventLoop()) {
            ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
        } else {
            eventLoop().execute(() -> ((AbstractUnsafe) unsafe()).shutdownOutput(promise));
        }
        return promise;
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        ChannelFuture out = shutdownOutput();
        out.addListener((ChannelFutureListener) f -> {
            ChannelFuture in = shutdownInput();
            in.addListener((ChannelFutureListener) g -> {
                if (!f.isSuccess()) {
                    promise.tryFailure(f.cause());
                } else if (!g.isSuccess()) {
                    promise.tryFailure(g.cause());
                } else {
                    promise.trySuccess();
                }
            });
        });
        return promise;
    }

    /** The accepted side, now on its loop: opens its endpoint and answers the client's CONNECT with ACCEPT. */
    private void openAccepted() {
        if (acceptRequest != null) {
            cm = MsgPath.accept(handler, acceptRequest, acceptPeer, acceptWindow, acceptSlotSize, config.getWindow(),
                    config.getSlotSize(), events);
            stream = cm.stream;
            local = JfabricAddress.of(acceptProvider, stream.link.name());
            // active at FI_CONNECTED (finishConnect), as nothing may be sent before
            state = State.CONNECTING;
            return;
        }
        FabricInfo info = LoopDomain.endpointInfo(acceptProvider, null, acceptPeer);
        stream = openStream(handler.domain(info), info);
        stream.peer(acceptPeer, acceptWindow, acceptSlotSize);
        stream.connectSeen();
        int rc = stream.sendHandshake(Frame.ACCEPT, -1);
        if (rc != 0) {
            throw new FabricException(-rc, "jfabric: ACCEPT to " + stream.peerText() + " failed");
        }
        local = JfabricAddress.of(acceptProvider, stream.link.name());
        state = State.ACTIVE;
        startProbes();
    }

    /** Where the provider would not tell of a dead peer, the stream probes it while the channel is active. */
    private void startProbes() {
        FrameStream s = stream;
        if (s.needsProbes()) {
            long every = FrameStream.PROBE_INTERVAL_MILLIS;
            probes = eventLoop().scheduleAtFixedRate(() -> s.probe(System.nanoTime()), every, every,
                    TimeUnit.MILLISECONDS);
        }
    }

    private FrameStream openStream(LoopDomain d, FabricInfo info) {
        int window = config.getWindow();
        FrameLink link = FrameLink.open(d, info, FrameStream.rxSlots(window), FrameStream.spareSlots(window),
                window + Frame.CONTROL_SLOTS, config.getSlotSize());
        return new FrameStream(link, window, events);
    }

    private void startConnect(SocketAddress remoteAddress, ChannelPromise promise) throws ConnectException {
        JfabricAddress r = HostPort.peerAddress(remoteAddress, config.getProvider());
        boolean connected = MsgPath.isConnected(r.provider());
        if (r.nameNoCopy() == null && !connected) {
            throw new ConnectException("a jfabric channel connects to a bound server's JfabricAddress, not "
                    + remoteAddress);
        }
        try {
            if (connected) {
                cm = MsgPath.dial(handler, r, config.getWindow(), config.getSlotSize(), events);
                stream = cm.stream;
            } else {
                connectRdm(r);
            }
        } catch (FabricException e) {
            ConnectException ce = new ConnectException("jfabric connect to " + r + " failed: " + e.getMessage());
            ce.initCause(e);
            throw ce;
        }
        startConnectTimer(r, promise);
    }

    private void connectRdm(JfabricAddress r) {
        FabricInfo info = LoopDomain.endpointInfo(r.provider(), bindTo, r.nameNoCopy());
        LoopDomain d = handler.domain(info);
        stream = openStream(d, info);
        int rc;
        // a dialer binds where the channel's endpoint does, which a chosen port (service) leaves to one endpoint
        if (Dialer.wanted(r.provider()) && (bindTo == null || bindTo.service() == null)) {
            dialer = Dialer.open(d, info, r.nameNoCopy(), stream.link.name().length);
            rc = stream.sendConnect(dialer);
        } else {
            rc = stream.sendHandshake(Frame.CONNECT, stream.link.insert(r.nameNoCopy()));
        }
        if (rc != 0) {
            throw new FabricException(-rc, "CONNECT not sent");
        }
    }

    private void startConnectTimer(JfabricAddress r, ChannelPromise promise) {
        local = localName(r.provider());
        remote = r;
        state = State.CONNECTING;
        connectPromise = promise;
        connectDeadline = ConnectDeadline.start(eventLoop(), r, config.getConnectTimeoutMillis(), stream,
                this::failConnect);
        promise.addListener((ChannelFutureListener) f -> {
            if (f.isCancelled()) {
                if (connectDeadline != null) {
                    connectDeadline.cancel();
                }
                connectPromise = null;
                unsafe().close(unsafe().voidPromise());
            }
        });
    }

    private void failConnect(ConnectException cause) {
        ChannelPromise p = connectPromise;
        if (p != null && p.tryFailure(cause)) {
            connectPromise = null;
            unsafe().close(unsafe().voidPromise());
        }
    }

    /** The endpoint's own address; a connected provider's client may have none until it is connected. */
    private JfabricAddress localName(String provider) {
        try {
            return JfabricAddress.of(provider, stream.link.name());
        } catch (FabricException e) {
            return null;
        }
    }

    /** One loop turn for this channel: completions first, then what they asked for, outside the CQ read. */
    private int poll() {
        FrameStream s = stream;
        if (s == null || state == State.CLOSED) {
            return 0;
        }
        int work = s.poll();
        if (cm != null) {
            work += cm.poll(events);
        }
        StreamEvents e = events;
        Dialer dl = dialer;
        if (dl != null) {
            work += dl.poll();
            if (dl.failure() != null) {
                e.broken(new IOException("jfabric CONNECT to " + remote + " failed: " + dl.failure()));
            }
        }
        if (e.accepted != null) {
            finishConnect();
        }
        if (e.brokenCause != null) {
            IOException cause = e.brokenCause;
            e.brokenCause = null;
            brokenNow(cause);
            return work + 1;
        }
        if (e.writable || e.retryWrite) {
            e.writable = false;
            e.retryWrite = false;
            ((JfabricUnsafe) unsafe()).resumeFlush();
        }
        if (state == State.ACTIVE && !readPending && s.hasInbound()
                && Frame.type(s.peekInbound().memory) == Frame.FIN) {
            // as epoll's RDHUP: the peer's FIN is seen with nothing before it even when no read is pending
            s.releaseHead();
            closeOnRead();
            work++;
        }
        if (readPending && state == State.ACTIVE) {
            if (s.hasInbound()) {
                readInbound();
                work++;
            } else if (inputShutdown && !inputShutdownSeen) {
                inputShutdownSeen = true;
                readPending = false;
                pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
            }
        }
        return work;
    }

    private void finishConnect() {
        StreamEvents e = events;
        byte[] name = e.accepted;
        e.accepted = null;
        ChannelPromise p = connectPromise;
        if (state != State.CONNECTING || p == null && acceptRequest == null) {
            return;
        }
        connectPromise = null;
        if (connectDeadline != null) {
            connectDeadline.cancel();
        }
        closeDialer(); // the listener had the CONNECT: the accepted side answered
        try {
            stream.peer(name, e.acceptedWindow, e.acceptedSlotSize);
        } catch (FabricException ex) {
            // the accepted side closed already and its endpoint is gone (shm's AV refuses a vanished region): as
            // a TCP connect accepted and closed at once, the channel connects, reads what came, and sees the close
            stream.peerGone(name);
        }
        state = State.ACTIVE;
        startProbes();
        if (local == null) {
            local = localName(remote.provider());
        }
        boolean promiseSet = p == null || p.trySuccess();
        pipeline().fireChannelActive();
        if (!promiseSet) {
            unsafe().close(unsafe().voidPromise());
        } else if (acceptRequest != null) {
            // what the child's handlers flushed while it waited for FI_CONNECTED (JfabricUnsafe.flush0)
            ((JfabricUnsafe) unsafe()).resumeFlush();
        }
    }

    private void brokenNow(IOException cause) {
        ChannelPromise p = connectPromise;
        if (state == State.CONNECTING && p != null) {
            connectPromise = null;
            ConnectException ce = new ConnectException("jfabric connect to " + remote + " refused: "
                    + cause.getMessage());
            ce.initCause(cause);
            p.tryFailure(ce);
        } else {
            pipeline().fireExceptionCaught(cause);
        }
        unsafe().close(unsafe().voidPromise());
    }

    private void readInbound() {
        FrameStream s = stream;
        ChannelPipeline pipeline = pipeline();
        RecvByteBufAllocator.Handle h = unsafe().recvBufAllocHandle();
        h.reset(config);
        ByteBufAllocator alloc = config.getAllocator();
        boolean fin = false;
        do {
            RxSlot slot = s.peekInbound();
            if (slot == null) {
                break;
            }
            if (Frame.type(slot.memory) == Frame.FIN) {
                fin = true;
                peerClosed = s.peerClosed;
                s.releaseHead();
                break;
            }
            int total = (int) (slot.received - Frame.HEADER);
            if (inputShutdown) {
                s.releaseHead();
                continue;
            }
            int n = total - slot.consumed;
            ByteBuf buf = n >= LEND_MIN ? s.lendHead() : null;
            if (buf != null) {
                h.attemptedBytesRead(n);
            } else {
                buf = h.allocate(alloc);
                n = Math.min(buf.writableBytes(), n);
                h.attemptedBytesRead(buf.writableBytes());
                SlotPacker.unpack(slot, Frame.HEADER + slot.consumed, buf, n);
                slot.consumed += n;
                if (slot.consumed == total) {
                    s.releaseHead();
                }
            }
            h.lastBytesRead(n);
            h.incMessagesRead(1);
            readPending = false;
            pipeline.fireChannelRead(buf);
        } while (state == State.ACTIVE && h.continueReading());
        h.readComplete();
        pipeline.fireChannelReadComplete();
        if (fin && state == State.ACTIVE) {
            closeOnRead();
        }
    }

    private void closeOnRead() {
        if (!inputShutdown && config.isAllowHalfClosure()) {
            inputShutdown = true;
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            if (!readPending && !inputShutdownSeen && state == State.ACTIVE) {
                inputShutdownSeen = true;
                pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
            }
        } else {
            inputShutdown = true;
            unsafe().close(unsafe().voidPromise());
        }
    }

    /** What the stream reported during a CQ read, acted on once the read is over. */
    private static final class StreamEvents implements FrameStream.Listener {
        byte[] accepted;
        int acceptedWindow;
        int acceptedSlotSize;
        boolean writable;
        boolean retryWrite;
        boolean broken;
        IOException brokenCause;

        @Override
        public void accepted(byte[] peerName, int peerWindow, int peerSlotSize) {
            accepted = peerName;
            acceptedWindow = peerWindow;
            acceptedSlotSize = peerSlotSize;
        }

        @Override
        public void inboundReady() {
            // poll() reads while a read is pending
        }

        @Override
        public void writable() {
            writable = true;
        }

        @Override
        public void broken(IOException cause) {
            if (!broken) {
                broken = true;
                brokenCause = cause;
            }
        }
    }

    private final class JfabricUnsafe extends AbstractUnsafe implements JfabricIoHandle {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            // not made uncancellable, as NIO's and epoll's connects are not: cancelling a connect in flight closes
            // the channel (startConnectTimer)
            if (promise.isDone() || !ensureOpen(promise)) {
                return;
            }
            if (state == State.ACTIVE) {
                safeSetFailure(promise, new AlreadyConnectedException());
                return;
            }
            if (connectPromise != null) {
                safeSetFailure(promise, new ConnectionPendingException());
                return;
            }
            try {
                if (localAddress != null) {
                    doBind(localAddress);
                }
                startConnect(remoteAddress, promise);
            } catch (Throwable t) {
                safeSetFailure(promise, annotateConnectException(t, remoteAddress));
                closeIfClosed();
                close(voidPromise());
            }
        }

        @Override
        public int poll() {
            return JfabricSocketChannel.this.poll();
        }

        @Override
        public void registered(JfabricIoHandler h) {
            handler = h;
            if (acceptPeer != null && stream == null) {
                openAccepted();
            }
        }

        @Override
        public void closeNow() {
            close(voidPromise());
        }

        @Override
        public void pollFailed(RuntimeException cause) {
            brokenNow(new IOException("jfabric channel to " + remote + " failed in its event loop: " + cause, cause));
        }

        @Override
        public void close() {
            close(voidPromise());
        }

        void resumeFlush() {
            flush0();
        }

        /**
         * An accepted child over a connected provider reaches the server's child handler before its FI_CONNECTED,
         * but a TCP child is connected when Netty hands it over, and handlers write from initChannel or channelActive
         * on. Its flushes are held in the outbound buffer until FI_CONNECTED (finishConnect), instead of failing
         * with NotYetConnectedException as a client's writes before its connect completes do.
         */
        @Override
        protected void flush0() {
            if (state == State.CONNECTING && acceptRequest != null) {
                return;
            }
            super.flush0();
        }
    }
}
