package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;

/**
 * A client in a JVM of its own, for the peer-failure tests: it dials the address in args[0], writes "ready", and
 * then sits there answering each read with "heard" until the test kills the process.
 */
public final class PeerProcess {
    private PeerProcess() {
    }

    public static void main(String[] args) throws Exception {
        EventLoopGroup group = new JfabricEventLoopGroup(1);
        Channel ch = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                        io.netty.util.ReferenceCountUtil.release(msg);
                        ctx.writeAndFlush(Unpooled.copiedBuffer("heard".getBytes()));
                    }
                })
                .connect(JfabricAddress.parse(args[0])).sync().channel();
        ch.writeAndFlush(Unpooled.copiedBuffer("ready".getBytes())).sync();
        Thread.sleep(120_000);
    }
}
