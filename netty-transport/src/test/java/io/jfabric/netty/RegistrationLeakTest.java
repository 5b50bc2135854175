package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pooled direct writes of 16 KiB both ways. Where the loop registers (the provider's FI_MR_LOCAL, or
 * {@link LoopDomain#REGISTER_SENDS} set, as here for tcp;ofi_rxm, since no FI_MR_LOCAL provider runs outside the
 * Soft-RoCE VM) they go out in place from a handful of cached chunk registrations, not one per write; on shm as it is
 * none is made. Either way the bytes come back in order, and once every channel and then the group are closed the
 * transport holds no more registrations than before.
 */
@Timeout(90)
class RegistrationLeakTest {
    private static final int WRITE = 16 * 1024;
    private static final int WRITES = 256;

    /**
     * {@code pooled}: PooledByteBufAllocator, whose buffers show their chunk; {@code adaptive}: Netty 4.2's default,
     * whose buffers do not, so they are copied and nothing is registered for them.
     */
    @ParameterizedTest
    @CsvSource({"shm,pooled", "tcp;ofi_rxm,pooled", "tcp;ofi_rxm,adaptive"})
    void cachedRegistrationsAreReusedAndAllReleased(String provider, String allocator) throws Exception {
        Providers.assumeAvailable(provider);
        ByteBufAllocator alloc = allocator.equals("pooled") ? PooledByteBufAllocator.DEFAULT : new AdaptiveByteBufAllocator();
        boolean registers = provider.equals(Providers.RXM) && allocator.equals("pooled");
        if (registers) {
            System.setProperty(LoopDomain.REGISTER_SENDS, "true");
        }
        try {
            echoAndCount(provider, alloc, registers);
        } finally {
            System.clearProperty(LoopDomain.REGISTER_SENDS);
        }
    }

    private static void echoAndCount(String provider, ByteBufAllocator alloc, boolean registers) throws Exception {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        long liveBefore = LoopDomain.LIVE_REGISTRATIONS.get();
        long chunksBefore = RegistrationCache.CHUNKS_REGISTERED.get();
        byte[] data = new byte[WRITE * WRITES];
        new Random(11).nextBytes(data);
        EventLoopGroup group = new JfabricEventLoopGroup(2);
        try {
            Channel server = EchoServer.bind(group, provider, alloc, false);
            CompletableFuture<byte[]> echoed = new CompletableFuture<>();
            byte[] got = new byte[data.length];
            Channel client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter() {
                        private int filled;

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf b = (ByteBuf) msg;
                            int n = Math.min(b.readableBytes(), got.length - filled);
                            b.readBytes(got, filled, n);
                            b.release();
                            filled += n;
                            if (filled == got.length) {
                                echoed.complete(got);
                            }
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            echoed.completeExceptionally(cause);
                        }
                    }).connect(server.localAddress()).sync().channel();
            for (int off = 0; off < data.length; off += WRITE) {
                ByteBuf b = alloc.directBuffer(WRITE);
                b.writeBytes(data, off, WRITE);
                client.writeAndFlush(b);
            }
            assertArrayEquals(data, echoed.get(60, TimeUnit.SECONDS));
            long chunks = RegistrationCache.CHUNKS_REGISTERED.get() - chunksBefore;
            if (registers) {
                // both sides' writes come from the pool: each side registers its chunks once, not once per write
                assertTrue(chunks >= 1 && chunks <= 8, () -> chunks + " chunk registrations for " + 2 * WRITES
                        + " pooled writes: expected a few, reused");
            } else {
                assertEquals(0, chunks, provider + " with " + alloc.getClass().getSimpleName() + " buffers: nothing should be registered for a write");
            }
            client.close().sync();
            server.close().sync();
            // the lingering streams close within the loop's linger bound; the last one clears the cache
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (LoopDomain.LIVE_REGISTRATIONS.get() != liveBefore && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(liveBefore, LoopDomain.LIVE_REGISTRATIONS.get(),
                    "registrations still held after every channel closed");
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        assertEquals(liveBefore, LoopDomain.LIVE_REGISTRATIONS.get(), "registrations still held after the group closed");
    }
}
