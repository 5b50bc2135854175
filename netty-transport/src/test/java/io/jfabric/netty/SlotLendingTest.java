package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large received frames reach the pipeline in their own receive slots ({@link SlotByteBuf}), while spare slots keep
 * the window posted: a reader that keeps every buffer it gets still receives the whole stream (copies once the
 * spares are out), its buffers stay readable after the channel closes, and the link's memory goes with the last;
 * one the reader drops without releasing is reported by Netty's leak detector, as a pooled buffer would be.
 */
@Timeout(60)
class SlotLendingTest extends GroupTestBase {
    private static final int WRITES = 64;
    private static final int WRITE_BYTES = 48 * 1024;

    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#streams")
    void aReaderThatKeepsEveryBufferGetsTheWholeStreamAndTheMemoryOutlivesTheChannel(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        byte[] data = new byte[WRITES * WRITE_BYTES];
        new Random(11).nextBytes(data);
        List<ByteBuf> kept = new ArrayList<>();
        CompletableFuture<Channel> complete = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    private int bytes;

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        synchronized (kept) {
                            kept.add(b);
                        }
                        bytes += b.readableBytes();
                        if (bytes == data.length) {
                            complete.complete(ctx.channel());
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        complete.completeExceptionally(cause);
                    }
                }).bind(Providers.serverAddress(provider)).sync().channel();
        Channel client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
        try {
            for (int off = 0; off < data.length; off += WRITE_BYTES) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(WRITE_BYTES);
                b.writeBytes(data, off, WRITE_BYTES);
                client.writeAndFlush(b);
            }
            Channel child = complete.get(Providers.seconds(30), TimeUnit.SECONDS);
            client.close().sync();
            child.closeFuture().sync();
            server.close().sync();

            List<SlotByteBuf> lent = new ArrayList<>();
            synchronized (kept) {
                for (ByteBuf b : kept) {
                    if (b instanceof SlotByteBuf s) {
                        lent.add(s);
                    }
                }
            }
            int spares = FrameStream.spareSlots(JfabricChannelConfig.DEFAULT_WINDOW);
            assertEquals(spares, lent.size(), "every spare lent once, then copies: " + kept.size() + " buffers");
            LentSlots slots = lent.getFirst().owner();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!slots.linkClosed() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(slots.linkClosed(), "the child's link closes once the channel has");
            assertEquals(spares, slots.lent());
            assertFalse(slots.memoryFreed(), "lent slots keep the link's memory");

            ByteBuf got = Unpooled.buffer(data.length);
            synchronized (kept) {
                for (ByteBuf b : kept) {
                    got.writeBytes(b);
                }
            }
            assertArrayEquals(data, got.array(), "the stream in order, read after the channel closed");
            got.release();
        } finally {
            synchronized (kept) {
                kept.forEach(ByteBuf::release);
                kept.clear();
            }
            client.close().sync();
            server.close().sync();
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#streams")
    void releasingTheLastLentBufferAfterCloseFreesTheMemory(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        CompletableFuture<ByteBuf> first = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (!first.complete((ByteBuf) msg)) {
                            ((ByteBuf) msg).release();
                        }
                    }
                }).bind(Providers.serverAddress(provider)).sync().channel();
        Channel client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(WRITE_BYTES);
        b.writeZero(WRITE_BYTES);
        client.writeAndFlush(b).sync();
        ByteBuf got = first.get(Providers.seconds(30), TimeUnit.SECONDS);
        SlotByteBuf slot = got instanceof SlotByteBuf s ? s : null;
        assertNotNull(slot, "a frame of " + WRITE_BYTES + " bytes arrives in its slot, not " + got.getClass());
        client.close().sync();
        server.close().sync();
        LentSlots slots = slot.owner();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!slots.linkClosed() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(slots.linkClosed());
        assertFalse(slots.memoryFreed());
        assertEquals(0, got.getByte(WRITE_BYTES - 1));
        assertTrue(got.release());
        assertEquals(0, slots.lent());
        assertTrue(slots.memoryFreed(), "the last lent slot given back frees the closed link's memory");
    }

    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#streams")
    void aLentBufferDroppedUnreleasedIsReportedAsALeak(String provider) throws Throwable {
        Providers.assumeAvailable(provider);
        RecordingLeakDetector.expectingLeaks(() -> dropOneLentBuffer(provider));
    }

    private static void dropOneLentBuffer(String provider) throws Exception {
        RecordingLeakDetector.collect();
        assertEquals(List.of(), RecordingLeakDetector.takeReports(), "no leak before this test");
        CompletableFuture<String> dropped = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        // the bug under test: a handler that forgets release() on the frame it was lent
                        dropped.complete(msg.getClass().getSimpleName());
                    }
                }).bind(Providers.serverAddress(provider)).sync().channel();
        Channel client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
        try {
            ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(WRITE_BYTES);
            b.writeZero(WRITE_BYTES);
            client.writeAndFlush(b).sync();
            assertEquals(SlotByteBuf.class.getSimpleName(), dropped.get(Providers.seconds(30), TimeUnit.SECONDS));
        } finally {
            client.close().sync();
            server.close().sync();
        }
        List<String> leaks = List.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (leaks.isEmpty() && System.nanoTime() < deadline) {
            RecordingLeakDetector.collect();
            leaks = RecordingLeakDetector.takeReports();
        }
        assertEquals(1, leaks.size(), "one report, for the one dropped buffer: " + leaks);
        assertTrue(leaks.getFirst().startsWith(SlotByteBuf.class.getSimpleName() + ":"), leaks.getFirst());
        assertTrue(leaks.getFirst().contains(LentSlots.class.getName() + ".lend"),
                "the report says where the buffer was lent: " + leaks.getFirst());
        assertTrue(leaks.getFirst().contains("will handle the message from this point"),
                "and which handler it went to: " + leaks.getFirst());
    }
}
