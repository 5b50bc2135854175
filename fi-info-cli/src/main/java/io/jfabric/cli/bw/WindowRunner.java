package io.jfabric.cli.bw;

import org.HdrHistogram.Histogram;

/**
 * The initiator's loop of bw and rma-bw: {@code warmup} untimed windows, then {@code iterations} timed ones. Each
 * window is a call of its own, so that C2 compiles it once for both phases: one long loop would be compiled on
 * stack during the warm-up and thrown away where it ends (pingpong's PingPong.roundTrips). The warm-up's times go
 * into the histogram too, with no branch on the phase inside the window, and are dropped when the timed part starts.
 */
final class WindowRunner {
    /** One window of operations, posted and completed; {@code done} operations went before it. */
    interface Window {
        void run(long done);
    }

    private WindowRunner() {}

    /** Runs every window; returns the {@link System#nanoTime()} at which the timed windows began. */
    static long run(BenchOptions o, int window, Histogram histogram, Progress progress, Window w) {
        long total = (long) (o.warmup() + o.iterations()) * window;
        long start = System.nanoTime();
        long done = 0;
        for (int it = 0; it < o.warmup() + o.iterations(); it++) {
            if (it == o.warmup()) {
                histogram.reset();
                start = System.nanoTime();
            }
            w.run(done);
            done += window;
            progress.update(done, total);
        }
        return start;
    }
}
