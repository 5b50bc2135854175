package io.jfabric.provider.shm;

import io.jfabric.provider.shm.ffi.FutexWaitv;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A domain's sleep on the doorbells of all its endpoints at once ({@code futex_waitv}), so that a waiter on a
 * domain with several endpoints (an event loop's channels, a wait set over their CQs) sleeps until a peer writes
 * into any of their rings, instead of polling them between short parks. Each endpoint is armed and checked as
 * for its own sleep ({@link ShmProgress#armForSleep}); a producer's ring ends the sleep, and so does a peer that
 * consumes the oldest deferred send of an endpoint whose sleep armed that wake ({@link ConsumeWait}).
 */
final class DoorbellSet implements AutoCloseable {
    private final ReentrantLock lock = new ReentrantLock();
    private FutexWaitv waitv;

    /** Whether {@code endpoints} doorbells can be slept on at once here. */
    static boolean canSleepOn(int endpoints) {
        return endpoints >= 1 && endpoints <= FutexWaitv.MAX && FutexWaitv.supported();
    }

    /**
     * Sleeps until a doorbell of {@code eps} rings or {@code nanos} pass; returns false at once, without
     * sleeping, when another thread sleeps here already (the caller then parks briefly instead).
     */
    boolean sleep(ShmEndpoint[] eps, long nanos) {
        if (eps.length > FutexWaitv.MAX || !lock.tryLock()) {
            return false;
        }
        int armed = 0;
        try {
            FutexWaitv w = waitv;
            if (w == null) {
                w = new FutexWaitv();
                waitv = w;
            }
            long limit = nanos;
            int words = 0;
            for (ShmEndpoint ep : eps) {
                long l = ep.armForSleep(nanos);
                armed++;
                if (l <= 0) {
                    return true; // work already waiting: no sleep
                }
                limit = Math.min(limit, l);
                w.set(words++, ep.doorbellAddress(), 1);
                long consumed = ep.consumeWaitAddress();
                if (consumed != 0) {
                    if (words < FutexWaitv.MAX) {
                        w.set(words++, consumed, ep.consumeWaitExpected());
                    } else {
                        limit = Math.min(limit, ConsumeWait.POLL_NANOS); // no room for the peer's head: look soon
                    }
                }
            }
            w.await(words, limit);
            return true;
        } finally {
            for (int i = 0; i < armed; i++) {
                eps[i].sleepDone();
            }
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (waitv != null) {
                waitv.close();
                waitv = null;
            }
        } finally {
            lock.unlock();
        }
    }
}
