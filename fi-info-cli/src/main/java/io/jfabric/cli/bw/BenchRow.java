package io.jfabric.cli.bw;

import org.HdrHistogram.Histogram;

/**
 * One size's result: operations timed, bytes moved, wall time and the per-operation latency distribution
 * (post to completion, in nanoseconds).
 */
record BenchRow(String test, long size, long ops, long elapsedNanos, long p50, long p90, long p99, long p999,
                long max) {

    static BenchRow of(String test, long size, long ops, long elapsedNanos, Histogram h) {
        return new BenchRow(test, size, ops, elapsedNanos, h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }

    long bytes() {
        return ops * size;
    }

    /** MB/s with fabtests' MB (10^6 bytes). */
    double mbPerSec() {
        return elapsedNanos == 0 ? 0 : bytes() * 1000.0 / elapsedNanos;
    }

    double mopsPerSec() {
        return elapsedNanos == 0 ? 0 : ops * 1000.0 / elapsedNanos;
    }

    double usecPerOp() {
        return ops == 0 ? 0 : elapsedNanos / 1000.0 / ops;
    }
}
