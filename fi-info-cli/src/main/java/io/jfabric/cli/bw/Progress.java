package io.jfabric.cli.bw;

import java.io.PrintStream;

/**
 * Progress on stderr for long runs: at most one line every two seconds, and only once a size has run
 * for more than two seconds, so short runs stay quiet. Called from the data loop; it allocates only
 * when it prints.
 */
final class Progress {
    private static final long INTERVAL = 2_000_000_000L;
    private final PrintStream err;
    private final boolean enabled;
    private long sizeStart;
    private long lastPrint;
    private long size;

    Progress(PrintStream err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
    }

    void start(long size) {
        this.size = size;
        sizeStart = System.nanoTime();
        lastPrint = sizeStart;
    }

    /** {@code done} of {@code total} operations of the current size have completed. */
    void update(long done, long total) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastPrint < INTERVAL) {
            return;
        }
        lastPrint = now;
        err.printf("  ... %d B: %d/%d ops (%d%%), %.0f s%n", size, done, total, total == 0 ? 100 : done * 100 / total,
                (now - sizeStart) / 1e9);
        err.flush();
    }
}
