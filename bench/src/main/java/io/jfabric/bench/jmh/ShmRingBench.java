package io.jfabric.bench.jmh;

import io.jfabric.provider.shm.MpscRing;
import io.jfabric.provider.shm.RecordHandler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * The shm provider's queue (io.jfabric.provider.shm.MpscRing, Agrona's many-to-one ring layout on a
 * MemorySegment): claim + fill + commit of one record and its read on one thread, and a producer thread
 * against the consumer thread (the cross-core case of two processes sharing the ring). The ring sits in
 * native memory as it does in the mapped region.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ShmRingBench {

    /** Counts and touches what it is handed, so the read is not optimised away. */
    static final class Sink implements RecordHandler {
        long sum;

        @Override
        public boolean onRecord(int type, MemorySegment buffer, long offset, int length) {
            sum += type + buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            return true;
        }
    }

    /** A ring shared by the benchmark's threads. */
    @State(Scope.Group)
    public static class Ring {
        @Param({"64", "1024"})
        int payload;
        Arena arena;
        MpscRing ring;

        @Setup(Level.Trial)
        public void setup() {
            arena = Arena.ofShared();
            ring = new MpscRing(arena.allocate(MpscRing.segmentSize(1 << 20), 4096));
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    /** The consumer's handler, one per consumer thread. */
    @State(Scope.Thread)
    public static class Consumer {
        final Sink sink = new Sink();
    }

    @Benchmark
    @Group("roundTrip")
    @GroupThreads(1)
    public long offerThenRead(Ring r, Consumer c) {
        long at = r.ring.tryClaim(1, r.payload);
        if (at >= 0) {
            r.ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, at, at);
            r.ring.commit(at);
        }
        r.ring.read(c.sink, 1);
        return c.sink.sum;
    }

    @Benchmark
    @Group("producerConsumer")
    @GroupThreads(1)
    public long producer(Ring r) {
        long at = r.ring.tryClaim(1, r.payload);
        if (at == MpscRing.FULL) {
            Thread.onSpinWait();
            return 0;
        }
        r.ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, at, at);
        r.ring.commit(at);
        return at;
    }

    @Benchmark
    @Group("producerConsumer")
    @GroupThreads(1)
    public int consumer(Ring r, Consumer c) {
        return r.ring.read(c.sink, 64);
    }
}
