package io.jfabric.bench.jmh;

import io.jfabric.Fabrics;
import io.jfabric.util.TagMatcher;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Tag matching (io.jfabric.util.TagMatcher), the receive-side hot path of rxm and shm: with {@code depth - 1}
 * non-matching receives already posted, one operation posts a receive, matches an arriving tagged message
 * against the posted queue (the new receive is last, so the whole queue is searched) and frees it; and the
 * unexpected path: a message arrives first and a later receive takes it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TagMatcherBench {
    @Param({"1", "16", "256"})
    int depth;

    private TagMatcher matcher;

    @Setup(Level.Trial)
    public void setup() {
        matcher = new TagMatcher(depth + 8, 64, true, 16384);
        for (int i = 0; i < depth - 1; i++) {
            TagMatcher.Recv r = matcher.newRecv();
            r.tagged = true;
            r.tag = 1_000_000 + i; // never sent
            r.src = Fabrics.ADDR_UNSPEC;
            matcher.post(r);
        }
    }

    /** Post, match at the end of a {@code depth}-long queue, free. */
    @Benchmark
    public TagMatcher.Recv postAndMatch() {
        TagMatcher.Recv r = matcher.newRecv();
        r.tagged = true;
        r.tag = 42;
        r.ignore = 0;
        r.src = 7;
        matcher.post(r);
        TagMatcher.Recv m = matcher.matchPosted(true, 42, 7);
        matcher.free(m);
        return m;
    }

    /** A message arrives with no receive posted for it, then a receive takes it from the unexpected queue. */
    @Benchmark
    public TagMatcher.Unexpected unexpectedThenRecv() {
        TagMatcher.Unexpected u = matcher.addUnexpected(true, 43, 7, 64, 0, 0);
        TagMatcher.Unexpected t = matcher.takeUnexpected(true, 43, 0, 7);
        matcher.free(t);
        return u;
    }
}
