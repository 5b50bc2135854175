package io.jfabric.conformance;

/**
 * The suite's waits, stretched for slow machines: {@code -Djfabric.conformance.timeScale=N} multiplies every
 * bounded wait (completions, events, peer processes). The Soft-RoCE VM runs JVM work 25-35x slower than
 * the host, where the default of 1 keeps the bounds tight. The peer JVM inherits the factor.
 */
public final class Slow {
    static final String PROPERTY = "jfabric.conformance.timeScale";
    static final long SCALE = Math.max(1, Long.getLong(PROPERTY, 1));

    private Slow() {
    }

    /** {@code millis} on this machine. */
    public static long ms(long millis) {
        return millis * SCALE;
    }
}
