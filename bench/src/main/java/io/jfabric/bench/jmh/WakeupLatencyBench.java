package io.jfabric.bench.jmh;

import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.WaitAttr;
import io.jfabric.WaitObj;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCompletionQueue;
import io.jfabric.util.UtilWaitSet;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Wake-up latency of a blocked waiter against busy polling (issue 21): the benchmark thread writes a completion
 * into one CQ and waits for the echo thread's answer in another; the echo thread waits for the first CQ the same
 * way. A round trip is two wake-ups. {@code wait}: {@code busy} spins on fi_cq_read, {@code sread} blocks in
 * fi_cq_sread, {@code waitset} blocks in fi_wait on a wait set holding the CQ. {@code echo}: the echo thread is
 * a platform or a virtual thread. The queues are util's, under auto progress (the writer is another thread).
 */
@State(Scope.Benchmark)
@Fork(1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class WakeupLatencyBench {
    @Param({"busy", "sread", "waitset"})
    String wait;
    @Param({"platform", "virtual"})
    String echo;

    private UtilWaitSet pingSet;
    private UtilWaitSet pongSet;
    private UtilCompletionQueue ping;
    private UtilCompletionQueue pong;
    private Thread echoThread;
    private volatile boolean running;
    private final CqEntry[] entry = CqEntry.array(1);

    @Setup(Level.Trial)
    public void setup() {
        boolean sets = wait.equals("waitset");
        pingSet = sets ? new UtilWaitSet(WaitAttr.defaults()) : null;
        pongSet = sets ? new UtilWaitSet(WaitAttr.defaults()) : null;
        ping = new UtilCompletionQueue(attr(pingSet), ProgressHook.NONE, true, false);
        pong = new UtilCompletionQueue(attr(pongSet), ProgressHook.NONE, true, false);
        running = true;
        Runnable loop = () -> {
            CqEntry[] e = CqEntry.array(1);
            while (running) {
                if (await(ping, pingSet, e) == 1) {
                    pong.write(e[0].context, 0, 0, 0, 0, 0);
                }
            }
        };
        echoThread = echo.equals("virtual") ? Thread.ofVirtual().start(loop) : Thread.ofPlatform().daemon().start(loop);
    }

    private static CqAttr attr(UtilWaitSet set) {
        CqAttr a = CqAttr.of(CqFormat.CONTEXT, 64);
        if (set != null) {
            a.waitObj = WaitObj.SET;
            a.waitSet = set;
        }
        return a;
    }

    /** One completion from {@code cq}, waiting as {@link #wait} says; -EAGAIN after about 100 ms without one. */
    private int await(UtilCompletionQueue cq, UtilWaitSet set, CqEntry[] e) {
        switch (wait) {
            case "busy" -> {
                long deadline = System.nanoTime() + 100_000_000L;
                int rc;
                while ((rc = cq.read(e, 1)) != 1 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                return rc;
            }
            case "sread" -> {
                return cq.sread(e, 1, 100);
            }
            default -> {
                int rc = cq.read(e, 1);
                if (rc != 1 && set.await(100) == 0) {
                    rc = cq.read(e, 1);
                }
                return rc;
            }
        }
    }

    @Benchmark
    public int roundTrip() {
        ping.write(this, 0, 0, 0, 0, 0);
        int rc;
        while ((rc = await(pong, pongSet, entry)) != 1) {
            // a 100 ms slice passed: keep waiting for the echo
        }
        return rc;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        running = false;
        ping.signal();
        echoThread.join(5_000);
        ping.close();
        pong.close();
        if (pingSet != null) {
            pingSet.close();
            pongSet.close();
        }
    }
}
