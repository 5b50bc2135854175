package io.jfabric.provider.shm;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Auto progress (FI_PROGRESS_AUTO) of one shm domain: a thread that progresses the domain's endpoints
 * under the domain lock, spins briefly after work (low latency), then sleeps on the endpoint's doorbell
 * futex (or parks briefly when the domain has several endpoints).
 */
final class ShmProgressThread {
    private static final System.Logger LOG = ShmEndpointState.LOG;

    private final ShmDomain domain;
    private final Thread thread;
    private volatile boolean running = true;
    /** The endpoint the thread sleeps on; a closing endpoint waits until it is not this. */
    private volatile ShmEndpoint sleepingOn;

    ShmProgressThread(ShmDomain domain) {
        this.domain = domain;
        this.thread = new Thread(this::run, "jfabric-shm-progress");
        thread.setDaemon(true);
        thread.start();
    }

    /** Wakes the thread until it no longer sleeps on {@code ep}, which is leaving the domain. */
    void release(ShmEndpoint ep) {
        while (sleepingOn == ep) {
            ep.wakeup();
            Thread.onSpinWait();
        }
    }

    /** Domain close: ends the thread (waiting a second at most). */
    void stop() {
        running = false;
        domain.wakeup();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        int idle = 0;
        while (running) {
            int work;
            domain.lock.lock();
            try {
                work = domain.progressEndpoints();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "shm progress thread: " + e, e);
                work = 0;
            } finally {
                domain.lock.unlock();
            }
            if (work > 0) {
                idle = 0;
            } else if (++idle < 1000) {
                Thread.onSpinWait();
            } else {
                ShmEndpoint[] eps = domain.endpoints();
                if (eps.length == 1) {
                    ShmEndpoint ep = eps[0];
                    sleepingOn = ep;
                    // re-check after publishing sleepingOn: detach() either sees it or we see the removal
                    if (domain.endpoints() == eps) {
                        ep.block(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                    sleepingOn = null;
                } else {
                    LockSupport.parkNanos(50_000);
                }
            }
        }
    }
}
