package io.jfabric.bench.jmh;

import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.OpFlags;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCompletionQueue;
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
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * The completion queue (io.jfabric.util.UtilCompletionQueue): a write and its read on one thread (manual
 * progress, where the reader's own progress writes), a batch of 16 writes read back with one call, and a
 * writer thread against a reader thread (auto progress: a progress thread writes, the application reads).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CompletionQueueBench {

    /** One queue used by one thread. */
    @State(Scope.Thread)
    public static class SingleThread {
        @Param({"CONTEXT", "TAGGED"})
        String format;
        UtilCompletionQueue cq;
        final CqEntry entry = new CqEntry();
        final CqEntry[] batch = CqEntry.array(16);
        final Object context = new Object();

        @Setup(Level.Trial)
        public void setup() {
            cq = new UtilCompletionQueue(CqAttr.of(CqFormat.valueOf(format), 1024), ProgressHook.NONE, false, false);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            cq.close();
        }
    }

    @Benchmark
    public int writeThenRead(SingleThread s) {
        s.cq.write(s.context, OpFlags.RECV | OpFlags.TAGGED, 64, 0, 0, 42);
        return s.cq.read(s.entry);
    }

    @Benchmark
    @org.openjdk.jmh.annotations.OperationsPerInvocation(16)
    public int write16ReadBatch(SingleThread s) {
        for (int i = 0; i < 16; i++) {
            s.cq.write(s.context, OpFlags.RECV, 64, 0, 0, 0);
        }
        return s.cq.read(s.batch, 16);
    }

    /** One queue shared by a writer thread and a reader thread. */
    @State(Scope.Group)
    public static class Shared {
        UtilCompletionQueue cq;
        final Object context = new Object();

        @Setup(Level.Trial)
        public void setup() {
            cq = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 4096), ProgressHook.NONE, false, false);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            cq.close();
        }
    }

    /** Per-reader-thread entry. */
    @State(Scope.Thread)
    public static class ReaderEntry {
        final CqEntry entry = new CqEntry();
    }

    @Benchmark
    @Group("writerReader")
    @GroupThreads(1)
    public int writer(Shared s) {
        // a full queue answers -EOVERRUN and would poison it; only write when there is room
        if (s.cq.freeSlots() > 0) {
            return s.cq.write(s.context, OpFlags.SEND, 0, 0, 0, 0);
        }
        Thread.onSpinWait();
        return 0;
    }

    @Benchmark
    @Group("writerReader")
    @GroupThreads(1)
    public void reader(Shared s, ReaderEntry r, Blackhole bh) {
        bh.consume(s.cq.read(r.entry));
    }
}
