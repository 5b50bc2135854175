package io.jfabric.provider.tcp;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The handshake that lets a connection hold back a send for the next progress call without stranding it
 * behind a sleeping reader. A connection holds (see {@link TcpProgress#submit}) only after announcing it here
 * and finding nobody asleep in the fabric's selector; a reader about to sleep announces itself and then looks
 * for holders, and stays awake while any connection holds. Each side writes before it reads, so at least one
 * of them sees the other: either the poster writes at once, or the reader's next pass flushes the held frames.
 */
final class SendHolds {
    private final AtomicInteger sleepers = new AtomicInteger();
    private final AtomicInteger holders = new AtomicInteger();

    /** A connection starts holding; false (and nothing held) when a reader sleeps, so it must write now. */
    boolean tryHold() {
        holders.incrementAndGet();
        if (sleepers.get() > 0) {
            holders.decrementAndGet();
            return false;
        }
        return true;
    }

    /** A holding connection wrote (or dropped) what it held. */
    void released() {
        holders.decrementAndGet();
    }

    /** A reader is about to sleep; false when a connection holds frames, and it must not (call {@link #awake}). */
    boolean sleeping() {
        sleepers.incrementAndGet();
        return holders.get() == 0;
    }

    void awake() {
        sleepers.decrementAndGet();
    }
}
