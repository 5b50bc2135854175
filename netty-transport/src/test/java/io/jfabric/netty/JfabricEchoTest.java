package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client writes 4 MiB in mixed sizes, direct and heap; the server echoes; the bytes come back in order. */
@Timeout(60)
class JfabricEchoTest extends GroupTestBase {
    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#streams")
    void echoesInOrder(String provider) throws Exception {
        Random sizes = new Random(3);
        echo(provider, i -> {
            int n = 1 + sizes.nextInt(100_000);
            return sizes.nextBoolean() ? PooledByteBufAllocator.DEFAULT.directBuffer(n) : Unpooled.buffer(n);
        });
    }

    /**
     * Small buffers ahead of large direct ones, as HTTP/2 writes a 9-byte frame header before each DATA payload: the
     * small ones are copied after the stream's frame header and the large one sent in place in the same frame.
     */
    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#streams")
    void smallBuffersAheadOfLargeDirectOnesArriveInOrder(String provider) throws Exception {
        Random sizes = new Random(5);
        echo(provider, i -> i % 3 == 2
                ? PooledByteBufAllocator.DEFAULT.directBuffer(4096 + sizes.nextInt(70_000))
                : i % 2 == 0 ? Unpooled.buffer(1 + sizes.nextInt(64)) : PooledByteBufAllocator.DEFAULT.directBuffer(9));
    }

    /**
     * Composites of one to five pooled buffers, some with a heap one among them, as HTTP/2 makes a DATA frame that
     * straddles two messages: those of direct buffers within the provider's iov limit are gathered in place, the
     * rest copied, and the bytes arrive in order either way.
     */
    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#streams")
    void compositesArriveInOrderAndGoInPlace(String provider) throws Exception {
        Random sizes = new Random(11);
        PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        long gathered = echo(provider, i -> {
            CompositeByteBuf c = alloc.compositeDirectBuffer();
            int parts = 1 + sizes.nextInt(5);
            for (int p = 0; p < parts; p++) {
                int n = 1 + sizes.nextInt(p == 0 ? 20_000 : 40_000);
                ByteBuf part = sizes.nextInt(8) == 0 ? alloc.heapBuffer(n) : alloc.directBuffer(n);
                c.addComponent(true, part.writeZero(n));
            }
            return c.setIndex(0, 0);
        });
        if (provider.contains("verbs")) {
            // FI_MR_LOCAL: only single pooled buffers go in place there, through the registration cache
            assertEquals(-1, gathered, provider + " gathers composites, whose parts it has no descriptors for");
        } else {
            assertTrue(gathered > 0, provider + ": no composite was gathered in place (" + gathered + ")");
        }
    }

    /**
     * Writes 4 MiB in the buffers {@code next} gives (the i-th write's, sized by its capacity) and checks the echo;
     * returns how many of the client's sends gathered a composite ({@link JfabricSocketChannel#gatheredSends}).
     */
    private long echo(String provider, java.util.function.IntFunction<ByteBuf> next) throws Exception {
        Providers.assumeAvailable(provider);
        byte[] data = new byte[4 << 20];
        new Random(7).nextBytes(data);
        ServerBootstrap sb = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.write(msg);
                    }

                    @Override
                    public void channelReadComplete(ChannelHandlerContext ctx) {
                        ctx.flush();
                    }
                });
        Channel server = sb.bind(Providers.serverAddress(provider)).sync().channel();
        CompletableFuture<byte[]> echoed = new CompletableFuture<>();
        ByteBuf got = Unpooled.buffer(data.length);
        Bootstrap cb = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf b = (ByteBuf) msg;
                                got.writeBytes(b);
                                b.release();
                                if (got.readableBytes() == data.length) {
                                    echoed.complete(java.util.Arrays.copyOf(got.array(), data.length));
                                }
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                echoed.completeExceptionally(cause);
                            }
                        });
                    }
                });
        Channel client = cb.connect(server.localAddress()).sync().channel();
        long gathered;
        try {
            Random flushes = new Random(3);
            int off = 0;
            for (int i = 0; off < data.length; i++) {
                ByteBuf b = next.apply(i);
                int n = Math.min(data.length - off, b.capacity());
                b.writeBytes(data, off, n);
                client.write(b);
                off += n;
                if (flushes.nextInt(8) == 0) {
                    client.flush();
                }
            }
            client.flush();
            assertArrayEquals(data, echoed.get(Providers.seconds(30), TimeUnit.SECONDS));
            gathered = client.eventLoop().submit(() -> ((JfabricSocketChannel) client).gatheredSends())
                    .get(10, TimeUnit.SECONDS);
        } finally {
            client.close().sync();
            server.close().sync();
            got.release();
        }
        assertTrue(client.closeFuture().isDone());
        return gathered;
    }

    /**
     * A server's child handler may write from initChannel, as on a TCP child (accepted, so connected, when Netty hands
     * it over): over a connected provider the child is still waiting for FI_CONNECTED then, and the write must arrive.
     */
    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#streams")
    void childWritesFromInitChannelArrive(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.writeAndFlush(Unpooled.wrappedBuffer("hello from initChannel".getBytes()));
                    }
                }).bind(Providers.serverAddress(provider)).sync().channel();
        CompletableFuture<String> greeting = new CompletableFuture<>();
        Channel client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    private final StringBuilder got = new StringBuilder();

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        got.append(b.toString(java.nio.charset.StandardCharsets.US_ASCII));
                        b.release();
                        if (got.length() >= 22) {
                            greeting.complete(got.toString());
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        greeting.completeExceptionally(cause);
                    }
                }).connect(server.localAddress()).sync().channel();
        try {
            assertEquals("hello from initChannel", greeting.get(Providers.seconds(10), TimeUnit.SECONDS));
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }
}
