package io.jfabric.provider.tcp;

import io.jfabric.util.UtilEventQueue;
import io.jfabric.util.ProgressHook;

import java.util.concurrent.TimeUnit;

/**
 * The manual-progress hook of a tcp CQ, counter or EQ: a read drives the endpoints bound to the queue
 * (data progress, or control and data for an EQ), and a blocking read sleeps on the fabric's selector,
 * which every socket is registered with, so it wakes when a socket becomes ready.
 */
final class QueueProgress implements ProgressHook {
    /** Longest single sleep: bounds the delay when an entry is written by another thread's progress. */
    private static final long MAX_BLOCK = TimeUnit.MILLISECONDS.toNanos(10);

    private final ProgressList list;
    private final TcpFabric fabric;
    private final boolean control;

    QueueProgress(ProgressList list, TcpFabric fabric, boolean control) {
        this.list = list;
        this.fabric = fabric;
        this.control = control;
    }

    /**
     * Set for an EQ: while it still holds events a read returns the next one without driving every bound
     * endpoint first. Draining n events otherwise costs n passes over all endpoints, which for an rxm
     * endpoint accepting thousands of peers (one core endpoint each) is quadratic: minutes for 2,000.
     */
    private UtilEventQueue events;

    void servesEventsOf(UtilEventQueue eq) {
        this.events = eq;
    }

    @Override
    public int progress() {
        if (events != null && events.size() > 0) {
            return 0;
        }
        return control ? list.progressAll() : list.progressData();
    }

    @Override
    public boolean canBlock() {
        return true;
    }

    @Override
    public void block(long nanos) {
        fabric.waitForIo(Math.min(nanos, MAX_BLOCK));
    }

    @Override
    public void wakeup() {
        fabric.wakeup();
    }

    /** java.nio's selector parks a virtual thread in select (JDK 21+), so a virtual waiter sleeps on it itself. */
    @Override
    public boolean blockParksVirtualThreads() {
        return true;
    }

    /** Every queue of a fabric sleeps on its one selector, so a wait set over them sleeps there too. */
    @Override
    public Object eventSource() {
        return fabric;
    }
}
