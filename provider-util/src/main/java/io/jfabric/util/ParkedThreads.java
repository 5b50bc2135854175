package io.jfabric.util;

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
        Node prev;
        Node next;
        /** Cleared by a signal before it unparks: a signalled thread need not take the lock again. */
        volatile boolean queued;
    }

    private final ReentrantLock lock;
    private Node head;
    private Node tail;

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
        append(me);
        lock.unlock();
        LockSupport.parkNanos(this, nanos);
        if (me.queued) {
            // timed out or woke spuriously: take itself off the list
            lock.lock();
            try {
                if (me.queued) {
                    remove(me);
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
        Node n = head;
        if (n == null) {
            return null;
        }
        remove(n);
        return n.thread;
    }

    /** Unparks every parked thread. */
    void signalAll() {
        while (head != null) {
            signal();
        }
    }

    private void append(Node n) {
        n.queued = true;
        n.next = null;
        n.prev = tail;
        if (tail == null) {
            head = n;
        } else {
            tail.next = n;
        }
        tail = n;
    }

    private void remove(Node n) {
        if (n.prev == null) {
            head = n.next;
        } else {
            n.prev.next = n.next;
        }
        if (n.next == null) {
            tail = n.prev;
        } else {
            n.next.prev = n.prev;
        }
        n.prev = null;
        n.next = null;
        n.queued = false;
    }
}
