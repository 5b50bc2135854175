package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
}
