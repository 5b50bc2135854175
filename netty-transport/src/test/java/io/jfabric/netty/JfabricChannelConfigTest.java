package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The options a jfabric stream channel takes, as a bootstrap sets them. */
@Timeout(30)
class JfabricChannelConfigTest extends GroupTestBase {
    /** gRPC sets SO_KEEPALIVE on client and server channels: both take it, so Netty logs no "Unknown channel option". */
    @Test
    void keepAliveSetByABootstrapIsTakenOnClientAndChild() throws Exception {
        Providers.assumeAvailable("shm");
        CompletableFuture<Boolean> childKeepAlive = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void handlerAdded(io.netty.channel.ChannelHandlerContext ctx) {
                        childKeepAlive.complete(ctx.channel().config().getOption(ChannelOption.SO_KEEPALIVE));
                    }
                }).bind(Providers.serverAddress("shm")).sync().channel();
        Channel client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .option(ChannelOption.SO_KEEPALIVE, true).handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        try {
            assertEquals(Boolean.TRUE, client.config().getOption(ChannelOption.SO_KEEPALIVE));
            assertTrue(client.config().getOptions().containsKey(ChannelOption.SO_KEEPALIVE));
            assertEquals(Boolean.TRUE, childKeepAlive.get(Providers.seconds(10), TimeUnit.SECONDS));
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    void optionsOutsideTheirRangeAreRefusedAndOthersUnknown() {
        JfabricSocketChannel ch = new JfabricSocketChannel();
        assertThrows(IllegalArgumentException.class, () -> ch.config().setOption(JfabricChannelOption.WINDOW, 1));
        assertThrows(IllegalArgumentException.class, () -> ch.config().setOption(JfabricChannelOption.SLOT_SIZE, 100));
        assertFalse(ch.config().setOption(ChannelOption.TCP_NODELAY, true), "a TCP option has no meaning here");
        assertTrue(ch.config().setOption(ChannelOption.SO_KEEPALIVE, false));
        assertEquals(Boolean.FALSE, ch.config().getOption(ChannelOption.SO_KEEPALIVE));
    }

    /**
     * SO_BACKLOG, which servers written for NIO or epoll set, bounds the clients accepted while the server does not
     * read: with two, of three clients two connect once the server reads again, and the third fails (its CONNECT dropped,
     * so its connect times out; or, over a connected provider, its request rejected).
     */
    @ParameterizedTest
    @ValueSource(strings = {Providers.SHM, Providers.RXM, Providers.TCP})
    void soBacklogBoundsTheClientsWaitingForTheServerToRead(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .option(ChannelOption.SO_BACKLOG, 2).option(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // each child gets a pipeline of its own; nothing to add
                    }
                }).bind(Providers.serverAddress(provider)).sync()
                .channel();
        List<ChannelFuture> connects = new ArrayList<>();
        try {
            assertEquals(2, server.config().getOption(ChannelOption.SO_BACKLOG));
            assertTrue(server.config().getOptions().containsKey(ChannelOption.SO_BACKLOG));
            for (int i = 0; i < 3; i++) {
                connects.add(new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Providers.seconds(2) * 1000)
                        .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()));
            }
            Thread.sleep(500); // the three requests reach the server, which takes two and turns the third away
            assertEquals(0, connects.stream().filter(ChannelFuture::isSuccess).count(),
                    "no client is connected before the server reads");
            server.config().setAutoRead(true); // reads the whole backlog (a read() alone would take one)
            int connected = 0;
            for (ChannelFuture f : connects) {
                assertTrue(f.await(Providers.seconds(10), TimeUnit.SECONDS), "every connect ends");
                connected += f.isSuccess() ? 1 : 0;
            }
            assertEquals(2, connected, "clients connected with a backlog of two");
        } finally {
            for (ChannelFuture f : connects) {
                f.channel().close().sync();
            }
            server.close().sync();
        }
        assertThrows(IllegalArgumentException.class,
                () -> server.config().setOption(ChannelOption.SO_BACKLOG, -1));
    }
}
