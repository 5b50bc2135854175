package io.jfabric.util;

import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The threads parked in a {@link WaitCoordinator}: a Condition's await and signal, without the node a
 * Condition allocates for every await. Each thread has one node of its own (a thread waits in one place at a
 * time), linked in while it parks, so a blocked wait and its wake-up allocate nothing once the thread has
 * waited once. Every method is called with the coordinator's lock held; {@link #awaitNanos} returns without it,
 * so a signalled thread does not contend for the lock with its signaller (a contended ReentrantLock allocates).
 */
final class ParkedThreads {
    private static final ThreadLocal<Node> SELF = ThreadLocal.withInitial(Node::new);

    private static final class Node {
        Thread thread;
        /** Cleared by a signal before it unparks: a signalled thread need not take the lock again. */
        volatile boolean queued;
    }

    private final ReentrantLock lock;
    /** Oldest first; grows to the most threads ever parked at once, then allocates no more. */
    private final ArrayDeque<Node> parked = new ArrayDeque<>();

    ParkedThreads(ReentrantLock lock) {
        this.lock = lock;
    }

    /**
     * Releases the lock and parks up to {@code nanos}; returns without the lock. It may return early without a
     * signal (as Condition's may): the caller re-checks what it waits for.
     */
    void awaitNanos(long nanos) throws InterruptedException {
        Node me = SELF.get();
        me.thread = Thread.currentThread();
        me.queued = true;
        parked.addLast(me);
        lock.unlock();
        LockSupport.parkNanos(this, nanos);
        if (me.queued) {
            // timed out or woke spuriously: take itself off the list
            lock.lock();
            try {
                if (me.queued) {
                    me.queued = false;
                    parked.removeFirstOccurrence(me);
                }
            } finally {
                lock.unlock();
            }
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    /** Unparks the longest-parked thread, if any. */
    void signal() {
        LockSupport.unpark(takeFirst());
    }

    /**
     * Takes the longest-parked thread off the list, for the caller to unpark once it has released the lock (so the
     * woken thread does not find the lock still held); null if none.
     */
    Thread takeFirst() {
        Node n = parked.pollFirst();
        if (n == null) {
            return null;
        }
        n.queued = false;
        return n.thread;
    }

    /** Unparks every parked thread. */
    void signalAll() {
        while (!parked.isEmpty()) {
            signal();
        }
    }
}
