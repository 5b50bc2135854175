package io.jfabric.provider.rxm;

import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCompletionQueue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * The progress hook of an rxm CQ or counter: a read first drives the progress of the rxm endpoints bound to
 * it (libfabric's rxm_ep_progress as the queue's progress function), under the domain lock, over a snapshot
 * array of the bound endpoints. A blocking read or a wait set sleeps where the endpoints' core queues sleep
 * (tcp's selector, which sees arriving data and connection requests alike) when they all share one source;
 * otherwise it parks between progress calls.
 */
final class BoundEndpoints implements ProgressHook {
    private final Lock lock;
    private final List<RxmEndpoint> endpoints = new ArrayList<>();
    private volatile RxmEndpoint[] snapshot = new RxmEndpoint[0];

    /**
     * For a CQ, the queue this hook drives: while it holds completions a read takes the next one without
     * driving the endpoints again. Each drive polls every core connection, so with thousands of peers a read
     * per completion that drove them all made draining a backlog quadratic. Null for a counter; set once,
     * right after the CQ is made (the CQ needs its hook first).
     */
    UtilCompletionQueue cq;

    BoundEndpoints(Lock lock) {
        this.lock = lock;
    }

    @Override
    public int progress() {
        RxmEndpoint[] eps = snapshot;
        if (eps.length == 0 || (cq != null && cq.size() > 0)) {
            return 0;
        }
        lock.lock();
        try {
            for (RxmEndpoint ep : eps) {
                ep.progress();
            }
        } finally {
            lock.unlock();
        }
        return 0;
    }

    @Override
    public boolean canBlock() {
        RxmEndpoint[] eps = snapshot;
        if (eps.length == 0) {
            return false;
        }
        Object source = eps[0].coreWaits()[0].eventSource();
        for (RxmEndpoint ep : eps) {
            for (ProgressHook h : ep.coreWaits()) {
                if (h == ProgressHook.NONE || !h.canBlock() || h.eventSource() != source) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Sleeps on the core's source; the next progress then reads the core EQ (a connection request may wait). */
    @Override
    public void block(long nanos) {
        RxmEndpoint[] eps = snapshot;
        if (eps.length > 0 && readyToSleep()) {
            eps[0].coreWaits()[0].block(nanos);
        }
    }

    /** Marks each endpoint's next progress to read its core EQ; false when a core queue already holds entries. */
    @Override
    public boolean readyToSleep() {
        RxmEndpoint[] eps = snapshot;
        boolean idle = true;
        lock.lock();
        try {
            for (RxmEndpoint ep : eps) {
                idle &= ep.beforeSleep();
            }
        } finally {
            lock.unlock();
        }
        return idle;
    }

    @Override
    public void wakeup() {
        for (RxmEndpoint ep : snapshot) {
            for (ProgressHook h : ep.coreWaits()) {
                h.wakeup();
            }
        }
    }

    /**
     * False: a virtual waiter hands the sleep to a platform thread. A virtual thread in the core's selector makes
     * the JDK's own poller report pinning (jdk.VirtualThreadPinned in VirtualThreadWaitTest over tcp;ofi_rxm).
     */
    @Override
    public boolean blockParksVirtualThreads() {
        return false;
    }

    /** The core's source when the endpoints share one, so that a wait set over rxm and core queues sleeps there. */
    @Override
    public Object eventSource() {
        RxmEndpoint[] eps = snapshot;
        return eps.length > 0 && canBlock() ? eps[0].coreWaits()[0].eventSource() : this;
    }

    /** Binds {@code ep} once; the endpoint's bindings hold the reference that keeps the queue open. */
    void bind(RxmEndpoint ep) {
        lock.lock();
        try {
            if (endpoints.contains(ep)) {
                return;
            }
            endpoints.add(ep);
            snapshot = endpoints.toArray(new RxmEndpoint[0]);
        } finally {
            lock.unlock();
        }
    }

    /** Unbinds {@code ep} if bound. */
    void unbind(RxmEndpoint ep) {
        lock.lock();
        try {
            if (!endpoints.remove(ep)) {
                return;
            }
            snapshot = endpoints.toArray(new RxmEndpoint[0]);
        } finally {
            lock.unlock();
        }
    }
}
