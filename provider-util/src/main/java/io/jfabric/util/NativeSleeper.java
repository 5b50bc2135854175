package io.jfabric.util;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A platform thread that sleeps in a {@link ProgressHook#block} on behalf of a virtual thread: a native
 * blocking call (futex, completion channel) would pin the virtual thread's carrier, so the virtual thread
 * parks instead and this thread unparks it when the block returns. Started on first use; it exits after
 * {@link #IDLE_EXIT_NANOS} without a request and is started again when needed. One request at a time
 * (its {@link WaitCoordinator} has one leader).
 */
final class NativeSleeper implements Runnable {
    private static final long IDLE_EXIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition requested = lock.newCondition();
    private Thread thread;
    private boolean pending;
    private ProgressHook hook;
    private long nanos;
    private Thread requester;
    private volatile boolean done;

    /** Sleeps in {@code h.block(n)} on the platform thread; the caller parks until it returns. */
    void sleep(ProgressHook h, long n) {
        lock.lock();
        try {
            hook = h;
            nanos = n;
            requester = Thread.currentThread();
            done = false;
            pending = true;
            if (thread == null) {
                thread = Thread.ofPlatform().daemon().name("jfabric-wait-sleeper").start(this);
            }
            requested.signal();
        } finally {
            lock.unlock();
        }
        while (!done) {
            LockSupport.park(this);
            if (Thread.currentThread().isInterrupted()) {
                // end the native sleep now; the caller sees its interrupt status once the platform thread is back
                h.wakeup();
            }
        }
    }

    @Override
    public void run() {
        for (;;) {
            ProgressHook h;
            long n;
            Thread r;
            lock.lock();
            try {
                long idle = IDLE_EXIT_NANOS;
                while (!pending) {
                    if (idle <= 0) {
                        thread = null;
                        return;
                    }
                    idle = requested.awaitNanos(idle);
                }
                pending = false;
                h = hook;
                n = nanos;
                r = requester;
            } catch (InterruptedException e) {
                thread = null;
                return;
            } finally {
                lock.unlock();
            }
            try {
                h.block(n);
            } finally {
                done = true;
                LockSupport.unpark(r);
            }
        }
    }
}
