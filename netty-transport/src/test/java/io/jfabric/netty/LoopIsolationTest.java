package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A channel whose poll throws (a transport bug, such as memory used after its link closed) is closed with that
 * cause, and only it: the loop and the other channels on it go on. Netty ends a loop whose I/O handler throws,
 * and every channel on it with it.
 */
@Timeout(30)
class LoopIsolationTest {
    /** A channel's side of the loop whose first poll throws. */
    private static final class ThrowingHandle implements JfabricIoHandle {
        final IllegalStateException bug = new IllegalStateException("a bug in one channel's poll");
        final CompletableFuture<RuntimeException> failed = new CompletableFuture<>();
        volatile int polls;

        @Override
        public int poll() {
            if (polls++ == 0) {
                throw bug;
            }
            return 0;
        }

        @Override
        public void registered(JfabricIoHandler handler) {
        }

        @Override
        public void closeNow() {
        }

        @Override
        public void pollFailed(RuntimeException cause) {
            failed.complete(cause);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aChannelWhosePollThrowsIsClosedAndTheLoopCarriesOn() throws Exception {
        Providers.assumeAvailable(Providers.SHM);
        EventLoopGroup loop = new JfabricEventLoopGroup(1);
        try {
            Channel server = EchoServer.bind(loop, Providers.SHM, null, true);
            BlockingQueue<ByteBuf> replies = new LinkedBlockingQueue<>();
            Channel client = new Bootstrap().group(loop).channel(JfabricSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            replies.add((ByteBuf) msg);
                        }
                    }).connect(server.localAddress()).sync().channel();

            ThrowingHandle handle = new ThrowingHandle();
            ((IoEventLoop) loop.next()).register(handle).sync();
            assertSame(handle.bug, handle.failed.get(5, TimeUnit.SECONDS), "the failing channel is told why");

            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1, 2, 3})).sync();
            ByteBuf echoed = replies.poll(10, TimeUnit.SECONDS);
            try {
                assertEquals(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), echoed, "a channel beside it still echoes");
            } finally {
                if (echoed != null) {
                    echoed.release();
                }
            }
            assertEquals(42, loop.submit(() -> 42).get(5, TimeUnit.SECONDS), "the loop still runs tasks");
            client.close().sync();
            server.close().sync();
        } finally {
            loop.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
