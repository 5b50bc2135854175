package io.jfabric;

/** Flags of {@code fi_ep_bind}: which events of an endpoint a CQ or counter takes. */
public final class BindFlags {
    /** FI_TRANSMIT, the same bit as FI_SEND. */
    public static final long TRANSMIT = Caps.SEND;
    /** {@code FI_RECV}: receive completions or counts. */
    public static final long RECV = Caps.RECV;
    /** {@code FI_READ}: completions or counts of RMA reads this side starts. */
    public static final long READ = Caps.READ;
    /** {@code FI_WRITE}: completions or counts of RMA writes this side starts. */
    public static final long WRITE = Caps.WRITE;
    /** {@code FI_REMOTE_READ}: counts of peers' reads of this side's memory. */
    public static final long REMOTE_READ = Caps.REMOTE_READ;
    /** {@code FI_REMOTE_WRITE}: counts of peers' writes to this side's memory. */
    public static final long REMOTE_WRITE = Caps.REMOTE_WRITE;
    /** Only operations posted with FI_COMPLETION generate a success completion. */
    public static final long SELECTIVE_COMPLETION = 1L << 59;

    private static final FlagNames NAMES = new FlagNames(
            TRANSMIT, "FI_TRANSMIT", RECV, "FI_RECV", READ, "FI_READ", WRITE, "FI_WRITE",
            REMOTE_READ, "FI_REMOTE_READ", REMOTE_WRITE, "FI_REMOTE_WRITE",
            SELECTIVE_COMPLETION, "FI_SELECTIVE_COMPLETION");

    private BindFlags() {
    }

    /**
     * Prints bind flags as fi_tostr does.
     *
     * @param flags BindFlags bits
     * @return e.g. {@code FI_TRANSMIT | FI_RECV}
     */
    public static String toString(long flags) {
        return NAMES.format(flags);
    }
}
