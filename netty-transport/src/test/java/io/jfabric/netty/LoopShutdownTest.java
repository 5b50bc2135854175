package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A loop that shuts down closes its channels, their endpoints and its wait set, without an exception. */
@Timeout(30)
class LoopShutdownTest {
    /**
     * A shutdown with no quiet period begun by a task on the loop itself: Netty's loop then stops without another
     * turn that would close its channels (prepareToDestroy). The channel still closes, and its endpoint with it;
     * before, the open endpoint kept the domain open, and closing the loop's wait set failed in the loop thread. Its
     * handler still sees channelInactive and channelUnregistered: the close runs while the loop takes tasks (a
     * shutdown hook), not after it stopped, which refused them with Netty's "Can't invoke task later" warning.
     */
    @Test
    void aLoopShutDownFromItsOwnTaskClosesItsChannels() throws Exception {
        Providers.assumeAvailable("shm");
        EventLoopGroup serverGroup = new JfabricEventLoopGroup(1);
        EventLoopGroup dying = new JfabricEventLoopGroup(1);
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            Channel server = new ServerBootstrap().group(serverGroup).channel(JfabricServerChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter()).bind(Providers.serverAddress("shm")).sync()
                    .channel();
            List<String> events = new CopyOnWriteArrayList<>();
            Channel client = new Bootstrap().group(dying).channel(JfabricSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelInactive(ChannelHandlerContext ctx) {
                            events.add("inactive");
                        }

                        @Override
                        public void channelUnregistered(ChannelHandlerContext ctx) {
                            events.add("unregistered");
                        }
                    }).connect(server.localAddress()).sync().channel();
            client.eventLoop().execute(() -> dying.shutdownGracefully(0, 5, TimeUnit.SECONDS));
            assertTrue(dying.terminationFuture().await(10, TimeUnit.SECONDS), "the loop terminates");
            assertTrue(client.closeFuture().await(5, TimeUnit.SECONDS), "the channel closed with its loop");
            assertEquals(List.of("inactive", "unregistered"), events, "the handler saw the close");
            server.close().sync();
            assertEquals(List.of(), uncaught, "no exception in the loop thread as it closes its wait set");
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
            serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            dying.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
