package io.jfabric;

/** Flags of {@code fi_ep_bind}: which events of an endpoint a CQ or counter takes. */
public final class BindFlags {
    /** FI_TRANSMIT, the same bit as FI_SEND. */
    public static final long TRANSMIT = Caps.SEND;
    public static final long RECV = Caps.RECV;
    public static final long READ = Caps.READ;
    public static final long WRITE = Caps.WRITE;
    public static final long REMOTE_READ = Caps.REMOTE_READ;
    public static final long REMOTE_WRITE = Caps.REMOTE_WRITE;
    /** Only operations posted with FI_COMPLETION generate a success completion. */
    public static final long SELECTIVE_COMPLETION = 1L << 59;

    private static final FlagNames NAMES = new FlagNames(
            TRANSMIT, "FI_TRANSMIT", RECV, "FI_RECV", READ, "FI_READ", WRITE, "FI_WRITE",
            REMOTE_READ, "FI_REMOTE_READ", REMOTE_WRITE, "FI_REMOTE_WRITE",
            SELECTIVE_COMPLETION, "FI_SELECTIVE_COMPLETION");

    private BindFlags() {
    }

    public static String toString(long flags) {
        return NAMES.format(flags);
    }
}
