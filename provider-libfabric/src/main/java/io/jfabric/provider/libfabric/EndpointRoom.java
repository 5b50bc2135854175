package io.jfabric.provider.libfabric;

import io.jfabric.Errno;

import java.lang.foreign.MemorySegment;

/**
 * What the data-path rooms of one endpoint ({@link LibfabricMsg}, {@link LibfabricTagged},
 * {@link LibfabricRma}) share: the native fid's address, the domain's context slots, the endpoint's
 * preallocated iov memory and inject bounce buffer, copied into final fields so that a data call reads
 * them straight from its room. Each room holds the native function pointers of its own fi_ops table, read
 * once per control change (FI_CHECK_OP applied: a member the provider lacks reads as null).
 *
 * <p>The rooms do not normalize: a call passes to libfabric's entry point of the same form, since libfabric
 * normalizes the forms itself and doing it twice would cost the per-call budget.
 */
abstract class EndpointRoom {
    static final int EAGAIN = -Errno.EAGAIN;
    static final int EINVAL = -Errno.EINVAL;
    static final int ENOSYS = -Errno.ENOSYS;
    static final int EBADFLAGS = -Errno.EBADFLAGS;

    /**
     * The endpoint's shared state, handed to each room's constructor.
     *
     * @param endpoint   the endpoint the rooms belong to (asked only whether it is closed)
     * @param threadSafe whether the domain is FI_THREAD_SAFE, so that the shared scratch memory needs a lock
     * @param withheldRxFlags receive flags the bridge refuses for this native provider (InfoMapper.withheldCaps)
     * @param budget     the endpoint's count of outstanding reported transmits where the bridge keeps one, else null
     */
    record Shared(FidObject endpoint, ContextSlots slots, boolean threadSafe, IovScratch txScratch,
                  IovScratch rxScratch, InjectBuffer bounce, TxReporting reporting, long withheldRxFlags,
                  TxBudget budget) {
    }

    /** The "slot" of a transmit that writes no success completion: posted with a NULL context (TxReporting). */
    static final int NO_SLOT = Integer.MAX_VALUE;

    private final FidObject endpoint;
    /** The endpoint's fid, as the data calls take it (see DataCalls). */
    final long fidAddr;
    final ContextSlots slots;
    final boolean threadSafe;
    final IovScratch txScratch;
    final IovScratch rxScratch;
    final InjectBuffer bounce;
    private final TxReporting reporting;
    /** Receive flags never passed to this native provider: a receive posted with one is refused (FI_EBADFLAGS). */
    final long withheldRxFlags;
    private final TxBudget budget;

    EndpointRoom(Shared shared) {
        this.endpoint = shared.endpoint;
        this.fidAddr = shared.endpoint.fidAddr;
        this.slots = shared.slots;
        this.threadSafe = shared.threadSafe;
        this.txScratch = shared.txScratch;
        this.rxScratch = shared.rxScratch;
        this.bounce = shared.bounce;
        this.reporting = shared.reporting;
        this.withheldRxFlags = shared.withheldRxFlags;
        this.budget = shared.budget;
    }

    /** A context slot for a plain transmit call, {@link #NO_SLOT} when it reports nothing, or -1 when none is free. */
    final int txSlot(Object context) {
        return reporting.silent() ? NO_SLOT : budget == null ? slots.acquire(context, false) : budgeted(context);
    }

    /** As {@link #txSlot(Object)} for a transmit posted with {@code flags} (the msg forms). */
    final int txSlot(Object context, long flags) {
        return reporting.silent(flags) ? NO_SLOT : budget == null ? slots.acquire(context, false)
                : budgeted(context);
    }

    /** A slot charged to the endpoint's TxBudget, or -1 (the caller answers -FI_EAGAIN) when it is spent. */
    private int budgeted(Object context) {
        if (!budget.take()) {
            return -1;
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            budget.give();
            return -1;
        }
        slots.charge(slot, budget);
        return slot;
    }

    /** The native context of {@code slot}: its fi_context2, or NULL for {@link #NO_SLOT}. */
    final long contextAddress(int slot) {
        return slot == NO_SLOT ? 0 : slots.address(slot);
    }

    /** As {@link #contextAddress} as a segment, for the msg structures. */
    final MemorySegment contextSegment(int slot) {
        return slot == NO_SLOT ? MemorySegment.NULL : slots.segment(slot);
    }

    /** Reads this room's function pointers from the endpoint's ops table (FI_CHECK_OP). */
    abstract void load(MemorySegment fid);

    /** After fi_close: later calls must not reach the provider with a freed fid, so every pointer reads as missing. */
    abstract void clear();

    static boolean absent(MemorySegment fn) {
        return fn.address() == 0;
    }

    /** What a missing function means: the endpoint is closed (-EBADF) or the provider lacks it (-ENOSYS). */
    final int missing() {
        return endpoint.isClosed() ? -Errno.EBADF : ENOSYS;
    }

    /** The native call's result; a refused post gives its context slot back. */
    final int post(long rc, int slot) {
        if (rc < 0 && slot != NO_SLOT) {
            slots.release(slot);
        }
        return (int) rc;
    }
}
