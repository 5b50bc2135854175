package io.jfabric.netty;

import io.jfabric.FabricInfo;
import io.jfabric.netty.FrameLink.RxSlot;
import io.jfabric.netty.FrameLink.TxSlot;
import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;

import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * A listening jfabric endpoint, the counterpart of a server socket: it binds an RDM endpoint (its name is the
 * address clients dial), takes CONNECT frames and turns each into a {@link JfabricSocketChannel}, which opens its
 * own endpoint on the loop it is registered to and answers the client from there.
 *
 * <p>A CONNECT that is malformed is dropped and logged; the server stays up. Accepted clients wait in a backlog
 * of {@link ChannelOption#SO_BACKLOG} ({@link #BACKLOG} by default) while the pipeline is not reading; CONNECTs
 * beyond it are dropped, and their clients time out (a connected provider's are rejected).
 */
public final class JfabricServerChannel extends AbstractServerChannel {
    static final int BACKLOG = 128;
    /** Receive slots for CONNECTs: they are posted again as each is taken, so a burst between two polls fits. */
    private static final int CONNECT_SLOTS = 128;
    private static final int CONNECT_SLOT = 4096;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final System.Logger LOG = System.getLogger("jfabric.netty");

    private final JfabricServerChannelConfig config = new JfabricServerChannelConfig(this);
    private final ArrayDeque<JfabricSocketChannel> backlog = new ArrayDeque<>();
    private final ConnectSink sink = new ConnectSink();
    private volatile boolean open = true;
    private volatile JfabricAddress local;
    private JfabricIoHandler handler;
    private final LoopRegistration registration = new LoopRegistration();
    private FrameLink link;
    /** The passive endpoint instead of {@link #link} on a connected (FI_EP_MSG) provider. */
    private MsgListener listener;
    private boolean readPending;

    public JfabricServerChannel() {
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && (link != null || listener != null);
    }

    @Override
    public JfabricAddress localAddress() {
        return (JfabricAddress) super.localAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return LoopRegistration.compatible(loop, ServerUnsafe.class);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new ServerUnsafe();
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        registration.register(eventLoop(), (ServerUnsafe) unsafe(), promise);
    }

    @Override
    protected void doDeregister() {
        registration.cancel();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        JfabricAddress a = HostPort.bindAddress(localAddress, config.getProvider());
        if (MsgPath.isConnected(a.provider())) {
            listener = MsgListener.open(handler, a);
            local = listener.address();
            return;
        }
        FabricInfo info = LoopDomain.endpointInfo(a.provider(), a, null);
        link = FrameLink.open(handler.domain(info), info, CONNECT_SLOTS, 0, 1, CONNECT_SLOT);
        local = JfabricAddress.of(a.provider(), link.name());
    }

    @Override
    protected void doClose() {
        open = false;
        if (link != null) {
            link.close();
        }
        if (listener != null) {
            listener.close();
        }
        JfabricSocketChannel c;
        while ((c = backlog.pollFirst()) != null) {
            c.unsafe().closeForcibly();
        }
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
        if (handler != null) {
            handler.wakeup();
        }
    }

    private int poll() {
        if (link == null && listener == null || !open) {
            return 0;
        }
        int work = link != null ? link.poll(sink) : listener.poll(this, backlog, config.getBacklog());
        if (readPending && !backlog.isEmpty()) {
            acceptBacklog();
        }
        return work;
    }

    private void acceptBacklog() {
        ChannelPipeline pipeline = pipeline();
        RecvByteBufAllocator.Handle h = unsafe().recvBufAllocHandle();
        h.reset(config);
        do {
            JfabricSocketChannel child = backlog.pollFirst();
            if (child == null) {
                break;
            }
            h.incMessagesRead(1);
            readPending = false;
            pipeline.fireChannelRead(child);
        } while (open && h.continueReading());
        h.readComplete();
        pipeline.fireChannelReadComplete();
    }

    /** Turns CONNECT frames into child channels; nothing else belongs on a listening endpoint. */
    private final class ConnectSink implements FrameLink.Sink {
        @Override
        public void received(RxSlot slot) {
            try {
                String why = Frame.malformed(slot.memory, slot.received);
                if (why == null && Frame.type(slot.memory) != Frame.CONNECT) {
                    why = "frame type " + Frame.type(slot.memory) + " on a listening endpoint";
                } else if (why == null && (slot.received < Frame.HEADER + 5 || Frame.seq(slot.memory) != 0)) {
                    why = "CONNECT without a name or with sequence " + Frame.seq(slot.memory);
                }
                if (why != null) {
                    LOG.log(System.Logger.Level.WARNING, "jfabric server " + local + " dropped a frame: " + why);
                    return;
                }
                int window = Frame.credit(slot.memory);
                int slotSize = slot.memory.get(U32, Frame.HEADER);
                byte[] name = slot.memory.asSlice(Frame.HEADER + 4, slot.received - Frame.HEADER - 4)
                        .toArray(ValueLayout.JAVA_BYTE);
                if (window < 1 || slotSize < Frame.HEADER + 1 || backlog.size() >= config.getBacklog()) {
                    LOG.log(System.Logger.Level.WARNING, "jfabric server " + local + " dropped a CONNECT (window "
                            + window + ", slot " + slotSize + ", backlog " + backlog.size() + ")");
                    return;
                }
                backlog.addLast(new JfabricSocketChannel(JfabricServerChannel.this, local.provider(), name, window,
                        slotSize));
            } finally {
                link.postRecv(slot);
            }
        }

        @Override
        public void sent(TxSlot slot) {
            link.giveBack(slot);
        }

        @Override
        public void failed(Object context, int err, String why) {
            if (context instanceof RxSlot s && open) {
                link.postRecv(s);
            }
        }
    }

    private final class ServerUnsafe extends AbstractUnsafe implements JfabricIoHandle {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            safeSetFailure(promise, new UnsupportedOperationException("a server channel does not connect"));
        }

        @Override
        public int poll() {
            return JfabricServerChannel.this.poll();
        }

        @Override
        public void registered(JfabricIoHandler h) {
            handler = h;
        }

        @Override
        public void closeNow() {
            close(voidPromise());
        }

        @Override
        public void pollFailed(RuntimeException cause) {
            pipeline().fireExceptionCaught(cause);
            close(voidPromise());
        }

        @Override
        public void close() {
            close(voidPromise());
        }
    }
}
