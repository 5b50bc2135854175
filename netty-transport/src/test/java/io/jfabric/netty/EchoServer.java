package io.jfabric.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;

/** A jfabric server for tests whose children send every read back to where it came from. */
final class EchoServer {
    private EchoServer() {
    }

    /**
     * Binds on {@code provider}'s test address; {@code alloc} (null: the channel's default) serves the children's
     * reads, and {@code flushEachRead} flushes every echo at once instead of once per read burst.
     */
    static Channel bind(EventLoopGroup group, String provider, ByteBufAllocator alloc, boolean flushEachRead)
            throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new Echo(flushEachRead));
        if (alloc != null) {
            b.childOption(ChannelOption.ALLOCATOR, alloc);
        }
        return b.bind(Providers.serverAddress(provider)).sync().channel();
    }

    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        private final boolean flushEachRead;

        Echo(boolean flushEachRead) {
            this.flushEachRead = flushEachRead;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (flushEachRead) {
                ctx.writeAndFlush(msg, ctx.voidPromise());
            } else {
                ctx.write(msg, ctx.voidPromise());
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (!flushEachRead) {
                ctx.flush();
            }
        }
    }
}
