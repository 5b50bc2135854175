package io.jfabric.bench.jmh;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.bench.MessagePair;
import io.jfabric.bench.MessageStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The per-message path of each provider in isolation: a sender and a receiver endpoint in this process over
 * loopback (tcp: a connected MSG pair; shm and tcp;ofi_rxm: two RDM endpoints in each other's AV), driven from
 * the benchmark thread, so no second process and no control protocol add noise. {@code oneMessage} is one send
 * posted, received, and both completions read (latency of the whole path on one thread); {@code window} keeps 32
 * in flight and reports the time per message (what the message rate is made of). A regression in a provider's
 * post, progress or completion path shows here before bench/compare sees it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 1)
// the providers' FFM socket calls run in the forked JVM, which must allow them as the CLI does
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class MessageRateBench {
    private static final long SIZE = 64;
    private static final long STEP_BUDGET_NANOS = 10_000_000_000L;

    @Param({"tcp", "shm", "tcp;ofi_rxm"})
    public String provider;

    @Param({"msg", "tagged"})
    public String mode;

    private MessagePair pair;
    private MessageStream stream;

    @Setup(Level.Trial)
    public void open() {
        EndpointType type = provider.equals("tcp") ? EndpointType.MSG : EndpointType.RDM;
        FabricInfo info = MessagePair.find(provider, type, mode.equals("tagged") ? Caps.TAGGED : Caps.MSG);
        if (info == null) {
            throw new IllegalStateException("provider " + provider + " has no " + type + " endpoint with " + mode
                    + " here");
        }
        pair = new MessagePair(info, MessageStream.WINDOW * SIZE);
        stream = new MessageStream(pair, SIZE);
    }

    @TearDown(Level.Trial)
    public void close() {
        pair.close();
    }

    @Benchmark
    public void oneMessage() {
        stream.run(1, System.nanoTime() + STEP_BUDGET_NANOS);
    }

    @Benchmark
    @OperationsPerInvocation(WINDOWED)
    public void window() {
        stream.run(WINDOWED, System.nanoTime() + STEP_BUDGET_NANOS);
    }

    private static final int WINDOWED = 256;
}
