package io.jfabric.examples.rpc;

import java.util.concurrent.locks.LockSupport;

/**
 * How a polling loop waits when a pass found nothing: spin, then yield, then sleep a little (the machine may
 * have fewer cores than busy threads), by the time since the last work rather than by the number of empty
 * passes. An empty pass costs 20 times more on one provider than on another (an epoll_wait in libfabric's
 * tcp against a few loads in jfabric's), so a count of passes that covers a round trip on one sends the other
 * to sleep in the middle of it: 64 spins and 192 yields made jfabric's tcp;ofi_rxm RPC round trip 133 µs.
 */
final class IdleBackoff {
    /** Longer than a loopback TCP round trip: a reply that comes this soon is met spinning. */
    static final long SPIN_NANOS = 100_000;
    static final long YIELD_NANOS = 1_000_000;
    static final long PARK_NANOS = 50_000;

    private long idleSince;

    /** Work was done: the next empty pass starts a new wait. */
    void reset() {
        idleSince = 0;
    }

    /** One empty pass: waits as long as this wait has already lasted calls for. */
    void pause() {
        long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
        }
        long idle = now - idleSince;
        if (idle < SPIN_NANOS) {
            Thread.onSpinWait();
        } else if (idle < YIELD_NANOS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }
}
