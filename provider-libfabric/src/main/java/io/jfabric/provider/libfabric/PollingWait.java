package io.jfabric.provider.libfabric;

import java.util.concurrent.locks.LockSupport;

/**
 * How the libfabric provider blocks (fi_cq_sread, fi_eq_sread, fi_cntr_wait): it polls the native object from Java and
 * parks between polls, 20 µs at first, doubling to 1 ms, until the deadline. It never enters libfabric's own
 * blocking calls: a thread blocked in native code cannot be interrupted, and several of libfabric 1.17's waits
 * are broken (shm's fi_cq_sread and fi_cntr_wait ignore their timeout; fi_cntr_wait segfaults on the tcp, udp
 * and sockets counters; docs/conformance.md).
 */
final class PollingWait {
    private static final long FIRST_PARK_NANOS = 20_000;
    private static final long LONGEST_PARK_NANOS = 1_000_000;

    private final boolean forever;
    private final long deadline;
    private long park = FIRST_PARK_NANOS;

    /** @param timeoutMillis negative: no deadline */
    PollingWait(int timeoutMillis) {
        forever = timeoutMillis < 0;
        deadline = forever ? 0 : System.nanoTime() + timeoutMillis * 1_000_000L;
    }

    /** Parks until it is time to poll again; false, without parking, once the deadline has passed. */
    boolean pause(Object blocker) {
        long left = forever ? LONGEST_PARK_NANOS : deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        LockSupport.parkNanos(blocker, Math.min(park, left));
        park = Math.min(park * 2, LONGEST_PARK_NANOS);
        return true;
    }
}
