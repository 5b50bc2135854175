package io.jfabric.util;

/**
 * What a provider gives its queues so that reads drive progress, libfabric's {@code cq->progress}
 * ({@code ofi_cq_progress}) and the wait-set part of {@code ofi_cq_sreadfrom}.
 *
 * <p>{@link #progress()} runs at the start of every CQ/EQ/counter read under FI_PROGRESS_MANUAL. A
 * blocking read (sread, counter await) that finds nothing either calls {@link #block} when
 * {@link #canBlock()} says the provider can sleep on its own I/O (a {@code Selector.select(timeout)},
 * a futex on shared memory), or parks on the queue for at most the queue's manual poll interval and
 * then progresses again. {@link #wakeup()} must end a {@link #block} early; queues call it when an
 * entry is written from another thread or the application calls {@code signal()}.
 *
 * <p>Implementations must not allocate per call, and must tolerate being called from several
 * threads when the domain's threading level allows concurrent reads.
 */
public interface ProgressHook {
    /** A hook that does nothing: for auto progress, where another thread writes the entries. */
    ProgressHook NONE = () -> 0;

    /** Advances the provider's state (sockets, rings, timers); returns how much work it did (0 = none). */
    int progress();

    /** True when {@link #block} really sleeps until I/O arrives or {@link #wakeup()}; false to let the queue park. */
    default boolean canBlock() {
        return false;
    }

    /** Sleeps up to {@code nanos} waiting for I/O that {@link #progress()} would handle. */
    default void block(long nanos) {
    }

    /**
     * Called before a sleep on {@link #eventSource()} by whoever sleeps there for this hook (its own
     * {@link #block}, or a wait set's other member that shares the source): false when this hook holds work
     * its last progress left queued, which a sleep on the source would not see.
     */
    default boolean readyToSleep() {
        return true;
    }

    /**
     * Ends a concurrent {@link #block} early, and also the next block when none is under way yet (as
     * Selector.wakeup does): {@link WaitCoordinator} calls it after a waiter has last looked at its condition but
     * possibly before that waiter's block begins, so a wake-up that only ends a sleep already under way is lost.
     * Safe from any thread.
     */
    default void wakeup() {
    }

    /**
     * True when {@link #block} parks a virtual thread instead of blocking its carrier (a java.nio selector
     * does; a native futex or completion-channel read does not). When false, a virtual thread's wait hands
     * the {@link #block} to a platform thread ({@link WaitCoordinator}).
     */
    default boolean blockParksVirtualThreads() {
        return false;
    }

    /**
     * What {@link #block} sleeps on (a selector's owner, a doorbell's domain): a wait set whose members'
     * hooks all name one source sleeps on it; otherwise it polls each member between short parks.
     */
    default Object eventSource() {
        return this;
    }
}
