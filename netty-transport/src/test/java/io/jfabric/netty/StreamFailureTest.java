package io.jfabric.netty;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input and failure over shm: a malformed frame closes only its channel; a killed peer closes its channel. */
@Timeout(60)
class StreamFailureTest extends GroupTestBase {
    /** Accepts children into {@code children} and echoes; each child's first exception goes to {@code errors}. */
    private static Channel echoServer(BlockingQueue<Channel> children, BlockingQueue<Throwable> errors) throws Exception {
        return new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new EchoRecorder(children, errors)).bind(JfabricAddress.any(Providers.SHM)).sync().channel();
    }

    @ChannelHandler.Sharable
    private static final class EchoRecorder extends ChannelInboundHandlerAdapter {
        private final BlockingQueue<Channel> children;
        private final BlockingQueue<Throwable> errors;

        EchoRecorder(BlockingQueue<Channel> children, BlockingQueue<Throwable> errors) {
            this.children = children;
            this.errors = errors;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            children.add(ctx.channel());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
            ctx.close();
        }
    }

    private static Channel client(Channel server, BlockingQueue<ByteBuf> got) throws Exception {
        return new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        got.add((ByteBuf) msg);
                    }
                }).connect(server.localAddress()).sync().channel();
    }

    @Test
    void malformedFrameClosesThatChannelOnly() throws Exception {
        Providers.assumeAvailable(Providers.SHM);
        BlockingQueue<Channel> children = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        BlockingQueue<ByteBuf> got = new LinkedBlockingQueue<>();
        Channel server = echoServer(children, errors);
        Channel victimClient = client(server, got);
        Channel victim = children.poll(10, TimeUnit.SECONDS);
        Channel bystanderClient = client(server, got);
        Channel bystander = children.poll(10, TimeUnit.SECONDS);
        try {
            sendGarbage(((JfabricAddress) victim.localAddress()).name());
            Throwable cause = errors.poll(10, TimeUnit.SECONDS);
            assertTrue(cause != null && cause.getMessage().contains("malformed stream"), "cause: " + cause);
            assertTrue(victim.closeFuture().await(10, TimeUnit.SECONDS));
            assertTrue(bystander.isActive(), "the other channel of the same server stays up");
            bystanderClient.writeAndFlush(Unpooled.copiedBuffer("still here".getBytes())).sync();
            ByteBuf echo = got.poll(10, TimeUnit.SECONDS);
            assertTrue(echo != null, "the bystander still echoes");
            assertEquals("still here", echo.toString(java.nio.charset.StandardCharsets.US_ASCII));
            echo.release();
        } finally {
            victimClient.close().sync();
            bystanderClient.close().sync();
            server.close().sync();
            got.forEach(ReferenceCountUtil::release);
        }
    }

    /** A frame whose header names a version this side does not speak, sent from a raw shm endpoint. */
    private static void sendGarbage(byte[] to) {
        FabricInfo info = LoopDomain.infos(Providers.SHM, null, null).getFirst();
        try (Fabric f = Fabrics.openFabric(info); Domain d = f.openDomain(info);
             CompletionQueue cq = d.openCq(CqAttr.of(CqFormat.MSG, 16)); AddressVector av = d.openAv(AvAttr.of(AvType.MAP));
             Endpoint ep = d.openEndpoint(info); Arena arena = Arena.ofConfined()) {
            ep.bind(av);
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
            ep.enable();
            long dest = av.insert(to);
            MemorySegment frame = arena.allocate(Frame.HEADER + 8);
            Frame.write(frame, Frame.DATA, (short) 0, 1, 0, 8);
            frame.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 1, (byte) 99);
            assertEquals(0, ep.send(frame, null, dest, "garbage"));
            CqEntry e = new CqEntry();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cq.read(e) != 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals("garbage", e.context, "the raw send completed");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Providers.SHM, Providers.TCP, Providers.LIBFABRIC_TCP})
    void killedPeerClosesTheChannelNamingIt(String provider) throws Exception {
        withPeerProcess(provider, (child, peer, children, errors) -> {
            peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            // keep writing: the provider reports the dead peer on a send, and the channel closes with the cause
            CompletableFuture<Void> closed = new CompletableFuture<>();
            child.closeFuture().addListener(f -> closed.complete(null));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!closed.isDone() && System.nanoTime() < deadline) {
                // the failure reaches either the pipeline (a send completion in error) or the write's own
                // promise (a post refused), depending on when the provider sees the peer gone
                child.writeAndFlush(Unpooled.directBuffer(8192).writeZero(8192)).addListener(f -> {
                    if (!f.isSuccess() && !(f.cause() instanceof java.nio.channels.ClosedChannelException)) {
                        errors.add(f.cause());
                    }
                });
                Thread.sleep(10);
            }
            assertTrue(closed.isDone(), "the channel to the killed peer closed");
            assertCauseNamesPeer(errors);
        });
    }

    /**
     * A channel that only reads has no send that could fail when its peer dies. jfabric's RDM providers report the
     * peer gone (FI_JF_PEER_FAILED), MSG ones shut the connection down, and over the bridge's RDM providers, which
     * report nothing, the stream's probes find it: within the peer-failure bound either way.
     */
    @ParameterizedTest
    @ValueSource(strings = {Providers.SHM, Providers.RXM, Providers.TCP, Providers.LIBFABRIC_TCP, Providers.LIBFABRIC_RXM})
    void aChannelThatOnlyReadsClosesWhenItsPeerIsKilled(String provider) throws Exception {
        withPeerProcess(provider, (child, peer, children, errors) -> {
            peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            long bound = provider.equals(Providers.LIBFABRIC_RXM) ? 15 : 5;
            assertTrue(child.closeFuture().await(Providers.seconds(bound), TimeUnit.SECONDS),
                    "the reading channel closed within " + bound + " s of its peer's death");
            assertCauseNamesPeer(errors);
        });
    }

    /** Quiet for several probe intervals, a channel to a live peer stays open and still carries data both ways. */
    @ParameterizedTest
    @ValueSource(strings = {Providers.SHM, Providers.RXM, Providers.LIBFABRIC_RXM})
    void aQuietChannelToALivePeerStaysOpen(String provider) throws Exception {
        withPeerProcess(provider, (child, peer, children, errors) -> {
            Thread.sleep(4 * FrameStream.PROBE_INTERVAL_MILLIS + 500);
            assertTrue(child.isActive(), "the quiet channel is still active; errors: " + errors);
            child.writeAndFlush(Unpooled.directBuffer(8192).writeZero(8192)).sync();
            assertTrue(children.poll(10, TimeUnit.SECONDS) == child, "the peer still writes to it");
            assertTrue(errors.isEmpty(), "no error: " + errors);
        });
    }

    /**
     * A channel to a killed ofi_rxm peer, closed on our side: its FIN cannot be delivered, and ofi_rxm refuses it
     * (the peer's listener is gone) rather than saying EAGAIN. The stream gives up at that, instead of retrying on
     * every poll until its linger deadline, each retry a new TCP connect (hundreds a second).
     */
    @Test
    void closingAChannelToAKilledRxmPeerStopsReconnecting() throws Exception {
        withPeerProcess(Providers.RXM, (child, peer, children, errors) -> {
            peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(200);
            child.close().sync();
            Thread.sleep(300);
            long before = tcpActiveOpens();
            Thread.sleep(1200);
            long opens = tcpActiveOpens() - before;
            assertTrue(opens < 20, opens + " TCP connects in 1.2 s after closing the channel to a dead peer");
        });
    }

    /** What a test does with the server's child of a {@link PeerProcess} that has connected and written. */
    private interface PeerCase {
        void run(Channel child, Process peer, BlockingQueue<Channel> children, BlockingQueue<Throwable> errors)
                throws Exception;
    }

    /**
     * Serves on {@code provider}, starts a {@link PeerProcess} against it, and runs {@code body} with the child once
     * the peer has written; the children's later reads go to {@code children}, their exceptions to {@code errors}.
     */
    private static void withPeerProcess(String provider, PeerCase body) throws Exception {
        Providers.assumeAvailable(provider);
        BlockingQueue<Channel> children = new LinkedBlockingQueue<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        Channel server = serverForPeerProcess(provider, children, errors);
        Process peer = startPeerProcess(server);
        try {
            Channel child = children.poll(30, TimeUnit.SECONDS);
            assertTrue(child != null, "the peer process connected and wrote");
            body.run(child, peer, children, errors);
        } finally {
            peer.destroyForcibly();
            server.close().sync();
        }
    }

    private static void assertCauseNamesPeer(BlockingQueue<Throwable> errors) throws InterruptedException {
        Throwable cause = errors.poll(5, TimeUnit.SECONDS);
        assertInstanceOf(java.io.IOException.class, cause);
        assertTrue(cause.getMessage().contains("jfabric peer"), "the cause names the peer: " + cause.getMessage());
    }

    /** A server whose children report themselves on their first read, and their exceptions, then close. */
    private static Channel serverForPeerProcess(String provider, BlockingQueue<Channel> children,
            BlockingQueue<Throwable> errors) throws InterruptedException {
        return new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg);
                        children.add(ctx.channel());
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        errors.add(cause);
                        ctx.close();
                    }
                }).bind(Providers.serverAddress(provider)).sync().channel();
    }

    /** {@link PeerProcess} in a JVM of its own, connecting to {@code server} and writing. */
    private static Process startPeerProcess(Channel server) throws java.io.IOException {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                PeerProcess.class.getName(), server.localAddress().toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** The kernel's count of TCP connects this network namespace has begun (/proc/net/snmp, Tcp ActiveOpens). */
    private static long tcpActiveOpens() throws java.io.IOException {
        java.util.List<String> tcp = java.nio.file.Files.readAllLines(Path.of("/proc/net/snmp")).stream()
                .filter(l -> l.startsWith("Tcp:")).toList();
        java.util.List<String> names = java.util.List.of(tcp.get(0).split(" "));
        return Long.parseLong(tcp.get(1).split(" ")[names.indexOf("ActiveOpens")]);
    }
}
