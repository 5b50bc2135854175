package io.jfabric.provider.libfabric;

import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_fabric;
import io.jfabric.util.FdPoll;
import io.jfabric.util.ProgressHook;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The {@link ProgressHook} of a bridged CQ, EQ or counter, so that it sits in a jfabric wait set or poll set beside
 * Java providers' queues (fi_poll(3) sets that span providers). Nothing in Java learns of a native completion, so
 * the hook looks at the native queue: {@link #progress()} peeks at it, which drives the native provider's manual
 * progress (libfabric's util poll set does the same with a zero-count fi_cq_read).
 *
 * <p>A queue of a wait set is opened natively with FI_WAIT_FD. When the provider then gives its descriptor
 * ({@code fi_control(FI_GETWAIT)}; libfabric 1.17's tcp and tcp;ofi_rxm CQs and EQs, and shm's and udp;ofi_rxd's
 * EQs do, see src/test/c/wait_fd.c), {@link #block} sleeps in poll(2) on it through util's {@link FdPoll}, after
 * {@link #readyToSleep()}'s native {@code fi_trywait} answered 0 (fi_trywait(3)). Without one (shm's CQs refuse
 * FI_WAIT_FD, udp;ofi_rxd's CQs and every 1.17 counter but sockets' give no fd) {@link #canBlock()} is false and the
 * set progresses the queue between short parks, as it does for members of several providers.
 */
final class NativeWait implements ProgressHook {
    /** Bounds one poll(2); wake-ups end it sooner through the eventfd. */
    private static final int SLEEP_SLICE_MS = 100;

    private final WaitableFid queue;
    private final MemorySegment fabricFid;
    /** {@code fabric->ops->trywait}, read once. */
    private final MemorySegment trywaitFn;
    /** The one fid fi_trywait is asked about. */
    private final MemorySegment fids;
    private final FdPoll fdPoll;

    /**
     * @param fd the native wait descriptor, or negative when there is none to sleep on
     */
    NativeWait(WaitableFid queue, int fd) {
        this.queue = queue;
        this.fabricFid = queue.fabric.fid;
        this.trywaitFn = FabricInline.fabricOp(fabricFid, fi_ops_fabric.trywait$offset());
        this.fids = queue.arena.allocate(ValueLayout.ADDRESS);
        fids.set(ValueLayout.ADDRESS, 0, queue.fid);
        // without fi_trywait a sleep on the descriptor could miss what arrived just before it: poll instead
        this.fdPoll = fd >= 0 && trywaitFn.address() != 0 ? new FdPoll(fd) : null;
    }

    @Override
    public int progress() {
        return queue.peek() ? 1 : 0;
    }

    @Override
    public boolean canBlock() {
        return fdPoll != null;
    }

    /** The native fi_trywait: 0 means the descriptor will be signalled for whatever comes next. */
    @Override
    public boolean readyToSleep() {
        return fdPoll == null || fi_ops_fabric.trywait.invoke(trywaitFn, fabricFid, fids, 1) == 0;
    }

    @Override
    public void block(long nanos) {
        if (fdPoll != null) {
            fdPoll.poll((int) Math.max(1, Math.min(nanos / 1_000_000L, SLEEP_SLICE_MS)));
        }
    }

    @Override
    public void wakeup() {
        if (fdPoll != null) {
            fdPoll.wakeup();
        }
    }

    /** Ends a sleep on the descriptor before the native object (and its descriptor) goes. */
    void close() {
        if (fdPoll != null) {
            fdPoll.close();
        }
    }
}
