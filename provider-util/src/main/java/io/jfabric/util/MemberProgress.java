package io.jfabric.util;

import java.util.ArrayList;
import java.util.List;

/**
 * The progress of a wait set's or poll set's members as one {@link ProgressHook}: each distinct manual hook
 * progressed once per call. It can sleep on an event source only when every member's hook names the same
 * one (the queues of one tcp fabric share its selector); members of different providers are progressed
 * between short parks instead. Immutable: a set builds a new one when its membership changes. Whether the
 * members can block is asked on every wait, not fixed when they join: a queue joins before its endpoints
 * are bound, and only then does its hook know what to sleep on.
 */
final class MemberProgress implements ProgressHook {
    private final ProgressHook[] hooks;

    private MemberProgress(ProgressHook[] hooks) {
        this.hooks = hooks;
    }

    /** The hook for {@code members}: {@link ProgressHook#NONE} when none of them needs manual progress. */
    static ProgressHook of(Waitable[] members) {
        List<ProgressHook> distinct = new ArrayList<>();
        for (Waitable w : members) {
            ProgressHook h = w.progressHook();
            if (h != ProgressHook.NONE && !distinct.contains(h)) {
                distinct.add(h);
            }
        }
        return distinct.isEmpty() ? ProgressHook.NONE : new MemberProgress(distinct.toArray(new ProgressHook[0]));
    }

    @Override
    public int progress() {
        int work = 0;
        for (ProgressHook h : hooks) {
            work += h.progress();
        }
        return work;
    }

    /**
     * Sleeps on the first member's source: {@link #canBlock()} holds only when they all share it. Every member
     * is asked first, since the first one's block asks only itself (an rxm queue whose core EQ already holds a
     * connection request would otherwise sleep through it on another member's behalf).
     */
    @Override
    public void block(long nanos) {
        if (readyToSleep()) {
            hooks[0].block(nanos);
        }
    }

    /** Every member is asked, even after a refusal: asking prepares each for the sleep that may follow. */
    @Override
    public boolean readyToSleep() {
        boolean ready = true;
        for (ProgressHook h : hooks) {
            ready &= h.readyToSleep();
        }
        return ready;
    }

    @Override
    public boolean blockParksVirtualThreads() {
        for (ProgressHook h : hooks) {
            if (!h.blockParksVirtualThreads()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void wakeup() {
        for (ProgressHook h : hooks) {
            h.wakeup();
        }
    }

    @Override
    public boolean canBlock() {
        Object source = hooks[0].eventSource();
        for (ProgressHook h : hooks) {
            if (!h.canBlock() || h.eventSource() != source) {
                return false;
            }
        }
        return true;
    }
}
