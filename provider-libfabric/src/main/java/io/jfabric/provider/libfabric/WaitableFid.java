package io.jfabric.provider.libfabric;

import io.jfabric.WaitObj;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilWaitSet;
import io.jfabric.util.Waitable;

import java.lang.foreign.MemorySegment;

/**
 * A bridged CQ, EQ or counter as jfabric's wait sets, poll sets and fi_trywait see it ({@link Waitable}): whether
 * it has events is a look at the native queue ({@link #peek}), its progress hook is a {@link NativeWait}, and with
 * FI_WAIT_SET it is a member of a jfabric wait set from the end of its constructor until it closes
 * ({@link WaitMembership}).
 */
abstract class WaitableFid extends FidObject implements Waitable {
    private final WaitObj waitObj;
    private WaitMembership membership;

    WaitableFid(LibfabricFabric fabric, MemorySegment fid, WaitObj waitObj) {
        super(fabric, fid);
        this.waitObj = waitObj;
    }

    /**
     * The end of a subclass's constructor: a waiter of the set may look at the queue as soon as it joined.
     *
     * @param set the wait set to join (FI_WAIT_SET), or null
     */
    final void joinWaitSet(UtilWaitSet set) {
        membership = new WaitMembership(this, set);
        membership.join();
    }

    /** Whether a read would find something now (an event for a counter); drives the native progress. */
    abstract boolean peek();

    @Override
    public final boolean hasEvents() {
        return peek();
    }

    @Override
    public final ProgressHook progressHook() {
        return membership.hook;
    }

    @Override
    public final WaitObj waitObj() {
        return waitObj;
    }

    @Override
    void closing() {
        membership.leave();
    }
}
