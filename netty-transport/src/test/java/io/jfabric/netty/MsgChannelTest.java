package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.ConnectException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Channels over connected (FI_EP_MSG) providers: the server listens on a passive endpoint whose address is a
 * socket address, a client dials it by host and port, and a refused connection fails the connect.
 */
@Timeout(60)
class MsgChannelTest extends GroupTestBase {
    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Providers.TCP, Providers.LIBFABRIC_TCP})
    void clientDialsHostAndPort(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        assertTrue(MsgPath.isConnected(provider), provider + " has MSG endpoints only, so it takes the CM path");
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new Echo()).bind(Providers.serverAddress(provider)).sync().channel();
        Channel client = null;
        try {
            byte[] name = ((JfabricAddress) server.localAddress()).name();
            assertEquals(Providers.NODE, SockAddr.host(name), "the listener's name is its socket address");
            JfabricAddress dial = JfabricAddress.bind(provider, Providers.NODE, Integer.toString(SockAddr.port(name)));
            client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf b = (ByteBuf) msg;
                            got.add(b.toString(StandardCharsets.US_ASCII));
                            b.release();
                        }
                    }).connect(dial).sync().channel();
            client.writeAndFlush(Unpooled.copiedBuffer("over the CM", StandardCharsets.US_ASCII)).sync();
            StringBuilder echoed = new StringBuilder();
            while (echoed.length() < "over the CM".length()) {
                String part = got.poll(10, TimeUnit.SECONDS);
                assertTrue(part != null, "echo arrived: " + echoed);
                echoed.append(part);
            }
            assertEquals("over the CM", echoed.toString());
            JfabricAddress peerSeen = ((JfabricSocketChannel) client).remoteAddress();
            assertEquals(provider, peerSeen.provider());
        } finally {
            if (client != null) {
                client.close().sync();
            }
            server.close().sync();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Providers.TCP, Providers.LIBFABRIC_TCP})
    void connectToNoListenerFails(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        ChannelFuture f = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg);
                    }
                }).connect(JfabricAddress.bind(provider, "127.0.0.1", Integer.toString(port)));
        assertTrue(f.await(20, TimeUnit.SECONDS), "the connect finished");
        assertInstanceOf(ConnectException.class, f.cause(), "cause: " + f.cause());
        assertTrue(f.cause().getMessage().contains("127.0.0.1:" + port), "names the peer: " + f.cause().getMessage());
        assertTrue(f.channel().closeFuture().await(10, TimeUnit.SECONDS), "the channel closed");
    }
}
