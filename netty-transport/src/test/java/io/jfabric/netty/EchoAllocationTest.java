package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The steady-state echo path allocates nothing per message: a buffer ping-pongs between a client and a
 * server channel over shm, driven by the loops alone, 64 bytes (copied into a transmit slot, received by copy) and
 * 64 KiB (sent in place from the buffer and received as a lent slot, which the server echoes in place in turn), and the loops' threads' allocated bytes (ThreadMXBean) are
 * read around each measured round; the quietest of up to five rounds must stay under {@link #BOUND} bytes per round
 * trip. A per-message allocation shows in every round; the slack is for compilation: the loops' idle path (the wait
 * set's sleep) runs only when a loop has nothing to do, so it reaches C2's escape analysis later than the data path,
 * and on a loaded machine a round or two can still run it half-compiled.
 * Netty's leak detector is off for the measurement (at PARANOID it records a trace per buffer, which is its job).
 */
@Timeout(120)
class EchoAllocationTest {
    private static final int WARM_UP = 50_000;
    private static final int ROUND = 10_000;
    /** Bytes per round trip the quietest round may allocate: slack for the loop's occasional timer and task work. */
    private static final double BOUND = 1;

    /** Sends every message back, {@code remaining} times, then completes {@code done}. */
    private static final class PingPong extends ChannelInboundHandlerAdapter {
        volatile int remaining;
        volatile CompletableFuture<Void> done;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (--remaining > 0) {
                ctx.writeAndFlush(msg, ctx.voidPromise());
            } else {
                io.netty.util.ReferenceCountUtil.release(msg);
                done.complete(null);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }

        void run(Channel client, int roundTrips, int size) throws Exception {
            CompletableFuture<Void> f = new CompletableFuture<>();
            done = f;
            remaining = roundTrips;
            client.writeAndFlush(client.alloc().directBuffer(size).writeZero(size), client.voidPromise());
            f.get(60, TimeUnit.SECONDS);
        }
    }

    /** {@code pooled}: PooledByteBufAllocator; {@code adaptive}: Netty 4.2's default allocator. */
    @ParameterizedTest(name = "{0} buffers, {1} B")
    @CsvSource({"pooled, 64", "adaptive, 64", "pooled, 65536", "adaptive, 65536"})
    void echoRoundTripAllocatesNothingOverShm(String allocator, int size) throws Exception {
        ByteBufAllocator alloc = allocator.equals("pooled") ? PooledByteBufAllocator.DEFAULT : new AdaptiveByteBufAllocator();
        Providers.assumeAvailable(Providers.SHM);
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        mx.setThreadAllocatedMemoryEnabled(true);
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        EventLoopGroup group = new JfabricEventLoopGroup(2);
        try {
            Channel server = EchoServer.bind(group, Providers.SHM, alloc, true);
            PingPong pingPong = new PingPong();
            Channel client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                    .option(ChannelOption.ALLOCATOR, alloc)
                    .handler(pingPong).connect(server.localAddress()).sync().channel();
            long[] loops = loopThreads(group);
            pingPong.run(client, WARM_UP, size);
            double quietest = Double.MAX_VALUE;
            List<String> rounds = new ArrayList<>();
            for (int r = 0; r < 5 && quietest > BOUND; r++) {
                long before = sum(mx.getThreadAllocatedBytes(loops));
                pingPong.run(client, ROUND, size);
                double perTrip = (double) (sum(mx.getThreadAllocatedBytes(loops)) - before) / ROUND;
                rounds.add(String.format("%.2f", perTrip));
                quietest = Math.min(quietest, perTrip);
            }
            double q = quietest;
            System.out.println("EchoAllocationTest " + allocator + ", " + size + " B: bytes allocated per round trip on the loops, rounds " + rounds);
            assertTrue(q <= BOUND, () -> "echo of " + size + " B over shm with " + allocator + " buffers allocates " + q + " bytes per round trip on the loops "
                    + "(quietest of rounds " + rounds + "); bound " + BOUND);
            client.close().sync();
            server.close().sync();
        } finally {
            ResourceLeakDetector.setLevel(level);
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** The ids of the group's loop threads, asked of each loop. */
    private static long[] loopThreads(EventLoopGroup group) throws Exception {
        List<Long> ids = new ArrayList<>();
        for (EventExecutor e : group) {
            ids.add(e.submit(() -> Thread.currentThread().threadId()).get(10, TimeUnit.SECONDS));
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private static long sum(long[] values) {
        long s = 0;
        for (long v : values) {
            s += Math.max(0, v);
        }
        return s;
    }
}
