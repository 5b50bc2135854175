package io.jfabric.util;

import io.jfabric.WaitObj;

/**
 * A queue a wait set, a poll set or fi_trywait can look at: util's completion queue, event queue and counter
 * (libfabric's {@code fid_wait}/{@code fi_trywait} hooks on util_cq, util_eq and util_cntr).
 */
public interface Waitable {
    /** Whether a read would find something now; does not drive progress. */
    boolean hasEvents();

    /** The hook that drives this queue's progress ({@link ProgressHook#NONE} under auto progress). */
    ProgressHook progressHook();

    /** The wait object the queue was opened with. */
    WaitObj waitObj();

    /**
     * For a poll set: whether there is something to report, forgetting it for the next poll where the
     * queue tracks changes (a counter reports each change once, fi_poll(3)); a queue reports while non-empty.
     */
    default boolean takeEvents() {
        return hasEvents();
    }

    /**
     * fi_trywait on this queue: drives its progress once and says whether it is safe to sleep on its wait object
     * (nothing to read). A queue whose wait object must be armed (verbs' completion channel) arms it here.
     */
    default boolean trywait() {
        progressHook().progress();
        return !hasEvents();
    }
}
