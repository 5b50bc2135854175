package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task queued from another thread reaches its loop at once, whether the loop spins, yields or sleeps in its wait
 * set. The loop wakes only when it sleeps (IdleWait); a wake-up lost there would leave the task waiting for the
 * loop's next deadline, a second away when nothing is scheduled.
 */
@Timeout(60)
class LoopWakeupTest {
    /** Pauses between tasks: inside the spin, about the end of the yield window (50 µs), and asleep. */
    private static final long[] PAUSE_NANOS = {0, 20_000, 45_000, 55_000, 100_000, 1_000_000, 3_000_000};
    private static final int ROUNDS = 30;
    private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    @ParameterizedTest
    @ValueSource(strings = {Providers.SHM, Providers.RXM, Providers.TCP})
    void aTaskFromAnotherThreadRunsPromptlyWhateverTheLoopIsDoing(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        EventLoopGroup group = new JfabricEventLoopGroup(1);
        try {
            // a channel pair on the loop: its domain's wait set is what the loop sleeps in
            Channel server = new ServerBootstrap().group(group).channel(JfabricServerChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter()).bind(Providers.serverAddress(provider)).sync()
                    .channel();
            Channel client = new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            EventLoop loop = client.eventLoop();
            for (int round = 0; round < ROUNDS; round++) {
                for (long pause : PAUSE_NANOS) {
                    long until = System.nanoTime() + pause;
                    while (System.nanoTime() - until < 0) {
                        Thread.onSpinWait();
                    }
                    long queued = System.nanoTime();
                    long ran = loop.submit(System::nanoTime).get(5, TimeUnit.SECONDS);
                    assertTrue(ran - queued < LATE_NANOS, "a task queued from outside the loop " + pause / 1000
                            + " µs after the last one waited " + TimeUnit.NANOSECONDS.toMillis(ran - queued)
                            + " ms for it to wake");
                }
            }
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
