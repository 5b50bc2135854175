package io.jfabric.provider.libfabric;

import io.jfabric.OpFlags;

/**
 * Whether a transmit will write a success completion, so that one that will not (FI_SELECTIVE_COMPLETION on the
 * transmit CQ's binding and no FI_COMPLETION in the operation's flags) takes no context slot: libfabric never
 * hands its context back, so a slot held for it would be lost and the endpoint would run out of them. Such a
 * transmit goes out with a NULL context; where a native provider completes it anyway, {@code LibfabricCq} drops the
 * entry by that NULL context. Set on the control path (bind, before enable), read by every transmit.
 */
final class TxReporting {
    /** The tx op_flags the plain calls (fi_send, fi_write, ...) carry. */
    private final long defaultFlags;
    private boolean selective;

    TxReporting(long defaultFlags) {
        this.defaultFlags = defaultFlags;
    }

    /** The transmit CQ was bound with {@code selective} FI_SELECTIVE_COMPLETION. */
    void bound(boolean selective) {
        this.selective = selective;
    }

    /** A transmit posted with {@code flags} writes no success completion. */
    boolean silent(long flags) {
        return selective && (flags & OpFlags.COMPLETION) == 0;
    }

    /** A plain call (the endpoint's default op_flags) writes no success completion. */
    boolean silent() {
        return silent(defaultFlags);
    }
}
