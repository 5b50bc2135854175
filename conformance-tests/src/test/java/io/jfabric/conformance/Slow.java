package io.jfabric.conformance;

/**
 * The suite's waits, stretched for slow machines: {@code -Djfabric.conformance.timeScale=N} multiplies every
 * bounded wait (completions, events, peer processes). The Soft-RoCE VM runs JVM work 25-35x slower than
 * the host, where the default of 1 keeps the bounds tight. The peer JVM inherits the factor.
 */
public final class Slow {
    static final String PROPERTY = "jfabric.conformance.timeScale";
    static final long SCALE = Math.max(1, Long.getLong(PROPERTY, 1));
    static final String OPS_PROPERTY = "jfabric.conformance.opsDivisor";
    static final int OPS_DIVISOR = Math.max(1, Integer.getInteger(OPS_PROPERTY, 1));
    static final String BYTES_PROPERTY = "jfabric.conformance.bytesDivisor";
    static final int BYTES_DIVISOR = Math.max(1, Integer.getInteger(BYTES_PROPERTY, 1));

    private Slow() {
    }

    /** {@code millis} on this machine. */
    public static long ms(long millis) {
        return millis * SCALE;
    }

    /**
     * {@code count} repetitions of work whose number adds load, not coverage (several processes contending on
     * one target), divided by {@code -Djfabric.conformance.opsDivisor=N} on a machine where each operation costs
     * N-fold (the VM: an rxm atomic over Soft-RoCE takes about 10 ms), and never below {@code floor}, so that the
     * contenders still overlap for many operations. The default of 1 keeps the full count.
     */
    public static int ops(int count, int floor) {
        return Math.max(Math.min(count, floor), count / OPS_DIVISOR);
    }

    /**
     * {@code size} bytes of a message whose size adds transfer time, not coverage, divided by
     * {@code -Djfabric.conformance.bytesDivisor=N} where bytes move N-fold slower (the VM's Soft-RoCE carries about
     * 1 MB/s under TCG emulation, so a stream of 1 MiB messages takes a second a message), and never below
     * {@code floor}, chosen by the caller to keep the path it tests (a rendezvous rather than an eager send).
     */
    public static long bytes(long size, long floor) {
        return Math.max(Math.min(size, floor), size / BYTES_DIVISOR);
    }
}
