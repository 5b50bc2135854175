package io.jfabric.provider.shm;

import io.jfabric.provider.shm.ffi.FutexWaitv;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An endpoint's sleep until a peer consumes its oldest deferred send (an inline or bounce send that completes when the
 * peer's ring head passes its record), beside its own doorbell. The sleeper announces itself in the peer's ring
 * ({@link MpscRing#announceConsumeWaiter}) and sleeps on the peer's head word, which the consumer wakes when it moves
 * the head. So a sleeping sender sees its send complete as soon as the peer takes the message, and does not wake
 * every {@link #POLL_NANOS} to look, as it must where no such sleep can be armed.
 *
 * <p>One sleeper per endpoint arms it at a time (the others sleep on their doorbell with the poll limit). The armed
 * word is held from {@link #arm} to {@link #disarm}, under a lock taken without waiting.
 */
final class ConsumeWait implements AutoCloseable {
    /** Where no wake can be armed, a sleeper with deferred sends looks again this soon. */
    static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /**
     * An armed sleep still ends this soon: the consumer reads the announcement after storing the head without a
     * fence between the two (the ring's path stays fence-free), so in principle a wake can be missed, and then
     * the send completes this much later.
     */
    static final long FALLBACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by the lock, as are the two fields below. */
    private FutexWaitv waitv;
    private long address;
    private int expected;
    private boolean closed;

    /**
     * Arms the wake for {@code op}'s consumption. Returns 0 when the peer consumed it already (work waiting),
     * else how long the sleep may last: {@link #FALLBACK_NANOS} when armed, {@link #POLL_NANOS} when not.
     * Call {@link #disarm} afterwards in any case.
     */
    long arm(PendingOp op) {
        if (lock.isHeldByCurrentThread()) {
            disarm();
        }
        if (op == null || !FutexWaitv.supported() || !lock.tryLock()) {
            return POLL_NANOS;
        }
        try {
            Peer peer = op.peer;
            long end = op.ringEnd;
            if (closed || peer == null || end < 0 || !peer.ring.announceConsumeWaiter()) {
                lock.unlock();
                return POLL_NANOS;
            }
            int seen = peer.ring.headWord();
            // after the announcement: either the consumer sees it when it moves the head, or this sees the move
            if (peer.ring.consumed(end) || !peer.ring.consumeWaiterAnnounced()) {
                lock.unlock();
                return 0;
            }
            address = peer.ring.headWordAddress();
            expected = seen;
            return FALLBACK_NANOS;
        } catch (IllegalStateException unmapped) {
            // the peer's mapping closed under a stale op (its AV entry removed): sleep as without a wake
            address = 0;
            lock.unlock();
            return POLL_NANOS;
        }
    }

    /** Whether this thread armed a wake; then {@link #address} and {@link #expected} name the word. */
    boolean armed() {
        return lock.isHeldByCurrentThread() && address != 0;
    }

    long address() {
        return address;
    }

    int expected() {
        return expected;
    }

    /** Sleeps on {@code doorbell} (armed to 1) and the armed word; false, at once, when nothing is armed. */
    boolean sleep(long doorbell, long nanos) {
        if (!armed()) {
            return false;
        }
        FutexWaitv w = waitv;
        if (w == null) {
            w = new FutexWaitv();
            waitv = w;
        }
        w.set(0, doorbell, 1);
        w.set(1, address, expected);
        w.await(2, nanos);
        return true;
    }

    /** The sleep that {@link #arm} prepared is over. */
    void disarm() {
        if (lock.isHeldByCurrentThread()) {
            address = 0;
            lock.unlock();
        }
    }

    /** Waits for an armed sleep to end (at most its fallback limit), then frees the wait vector. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (waitv != null) {
                waitv.close();
                waitv = null;
            }
        } finally {
            lock.unlock();
        }
    }
}
