package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.WaitObj;
import io.jfabric.WaitSet;
import io.jfabric.util.UtilWaitSet;
import io.jfabric.util.Waitable;

/**
 * A bridged CQ's, EQ's or counter's part in jfabric's wait sets and poll sets: its {@link NativeWait} hook, and the
 * wait set it joined when opened with FI_WAIT_SET. The native object of such a queue is opened with FI_WAIT_FD, so
 * that the set can sleep on its descriptor; a provider that refuses FI_WAIT_FD gets FI_WAIT_NONE instead, and the
 * set then polls the queue (see {@link NativeWait}).
 */
final class WaitMembership {
    final NativeWait hook;
    private final Waitable member;
    private final UtilWaitSet set;
    private boolean left;

    /**
     * @param set the wait set to join ({@link #setOf}), or null; when not null the queue's native wait descriptor
     *            is looked up and slept on
     */
    WaitMembership(WaitableFid queue, UtilWaitSet set) {
        this.member = queue;
        this.set = set;
        this.hook = new NativeWait(queue, set == null ? -1 : queue.waitFd());
    }

    /** Joins the wait set, if any: once the queue answers {@link Waitable#progressHook()}, which the set asks. */
    void join() {
        if (set != null) {
            set.join(member);
        }
    }

    /** The jfabric wait set a queue opened with {@code waitObj} joins, or null when it is not FI_WAIT_SET. */
    static UtilWaitSet setOf(String what, WaitObj waitObj, WaitSet set) {
        return waitObj == WaitObj.SET ? UtilWaitSet.joinable(what, waitObj, set) : null;
    }

    /** The wait object the native object is opened with: a wait set's member sleeps on a descriptor. */
    static int nativeWaitObj(WaitObj waitObj) {
        return (waitObj == WaitObj.SET ? WaitObj.FD : waitObj).value();
    }

    /** Whether a wait-set member's open that failed with {@code rc} is tried again with FI_WAIT_NONE. */
    static boolean refusedFd(WaitObj waitObj, int rc) {
        return waitObj == WaitObj.SET && (rc == -Errno.ENOSYS || rc == -Errno.EINVAL || rc == -Errno.EOPNOTSUPP);
    }

    /** Leaves the wait set and ends a sleep on the descriptor; before the native close, which frees both. */
    synchronized void leave() {
        if (left) {
            return;
        }
        left = true;
        if (set != null) {
            set.leave(member);
        }
        hook.close();
    }
}
