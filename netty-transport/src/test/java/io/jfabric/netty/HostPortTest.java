package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.SimpleChannelInboundHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Channels bound and dialled by host and port ({@link InetSocketAddress}), as code written for NIO or epoll passes
 * them, over the provider {@link JfabricChannelOption#PROVIDER} names.
 */
@Timeout(60)
class HostPortTest extends GroupTestBase {
    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#hostAndPort")
    void aClientDialsTheHostAndPortAServerBoundAndTheyEcho(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .option(JfabricChannelOption.PROVIDER, provider)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg);
                    }
                }).bind(new InetSocketAddress(Providers.NODE, 0)).sync().channel();
        CompletableFuture<String> echoed = new CompletableFuture<>();
        Channel client = null;
        try {
            InetSocketAddress bound = ((JfabricAddress) server.localAddress()).asInetSocketAddress();
            assertNotNull(bound, "a " + provider + " server's address names its host and port");
            assertTrue(bound.getPort() > 0, "port 0 binds a port the provider picks: " + bound);
            client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                    .option(JfabricChannelOption.PROVIDER, provider)
                    .handler(new SimpleChannelInboundHandler<ByteBuf>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                            echoed.complete(msg.toString(StandardCharsets.UTF_8));
                        }
                    }).connect(Providers.NODE, bound.getPort()).sync().channel();
            client.writeAndFlush(Unpooled.copiedBuffer("by host and port", StandardCharsets.UTF_8));
            assertEquals("by host and port", echoed.get(Providers.seconds(20), TimeUnit.SECONDS));
            assertEquals(bound, ((JfabricAddress) client.remoteAddress()).asInetSocketAddress());
        } finally {
            if (client != null) {
                client.close().sync();
            }
            server.close().sync();
        }
    }

    @Test
    void shmRefusesAHostAndPortToBindOrDial() {
        Providers.assumeAvailable(Providers.SHM);
        ChannelFuture bind = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .option(JfabricChannelOption.PROVIDER, Providers.SHM).childHandler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress("127.0.0.1", 0)).awaitUninterruptibly();
        assertRefused(bind, "jfabric provider shm has no host-and-port addresses");
        ChannelFuture connect = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .option(JfabricChannelOption.PROVIDER, Providers.SHM).handler(new ChannelInboundHandlerAdapter())
                .connect("127.0.0.1", 7471).awaitUninterruptibly();
        assertRefused(connect, "jfabric provider shm has no host-and-port addresses");
    }

    @Test
    void aHostAndPortWithoutAProviderIsRefused() {
        ChannelFuture connect = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect("127.0.0.1", 7471).awaitUninterruptibly();
        assertRefused(connect, "only over a provider named with JfabricChannelOption.PROVIDER");
        ChannelFuture bind = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter()).bind(new InetSocketAddress("127.0.0.1", 0))
                .awaitUninterruptibly();
        assertRefused(bind, "only over a provider named with JfabricChannelOption.PROVIDER");
    }

    private static void assertRefused(ChannelFuture f, String because) {
        Throwable cause = f.cause();
        assertInstanceOf(IllegalArgumentException.class, cause);
        assertTrue(cause.getMessage().contains(because), cause.getMessage());
        assertTrue(f.channel().closeFuture().awaitUninterruptibly(5, TimeUnit.SECONDS), "the refused channel closed");
    }
}
