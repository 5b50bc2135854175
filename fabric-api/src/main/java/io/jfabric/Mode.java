package io.jfabric;

/**
 * Mode bits of {@code fi_info.mode}: requirements the application accepts. A provider is
 * offered only when the hint's mode covers every mode bit it needs (a mode hint of 0 accepts none).
 */
public final class Mode {
    /**
     * {@code FI_CONTEXT}: the application lends each operation's context to the provider (struct fi_context)
     * until it completes.
     */
    public static final long CONTEXT = 1L << 59;
    /** {@code FI_MSG_PREFIX}: message buffers start with msg_prefix_size bytes of space for the provider. */
    public static final long MSG_PREFIX = 1L << 58;
    /** {@code FI_ASYNC_IOV}: iov arrays must stay valid until the operation completes. */
    public static final long ASYNC_IOV = 1L << 57;
    /** {@code FI_RX_CQ_DATA}: remote CQ data consumes a posted receive. */
    public static final long RX_CQ_DATA = 1L << 56;
    /** {@code FI_LOCAL_MR}: legacy; local buffers must be registered (now FI_MR_LOCAL). */
    public static final long LOCAL_MR = 1L << 55;
    /** {@code FI_NOTIFY_FLAGS_ONLY}: counters and CQs bound with flags report only those events. */
    public static final long NOTIFY_FLAGS_ONLY = 1L << 54;
    /** {@code FI_RESTRICTED_COMP}: a CQ or counter serves only one endpoint's events. */
    public static final long RESTRICTED_COMP = 1L << 53;
    /** {@code FI_CONTEXT2}: as FI_CONTEXT with a struct fi_context2. */
    public static final long CONTEXT2 = 1L << 52;
    /** {@code FI_BUFFERED_RECV}: the provider buffers received data for the application to claim. */
    public static final long BUFFERED_RECV = 1L << 51;

    private static final FlagNames NAMES = new FlagNames(
            CONTEXT, "FI_CONTEXT", MSG_PREFIX, "FI_MSG_PREFIX", ASYNC_IOV, "FI_ASYNC_IOV",
            RX_CQ_DATA, "FI_RX_CQ_DATA", LOCAL_MR, "FI_LOCAL_MR", NOTIFY_FLAGS_ONLY, "FI_NOTIFY_FLAGS_ONLY",
            RESTRICTED_COMP, "FI_RESTRICTED_COMP", CONTEXT2, "FI_CONTEXT2", BUFFERED_RECV, "FI_BUFFERED_RECV");

    private Mode() {
    }

    /**
     * Prints mode bits as fi_tostr(FI_TYPE_MODE) does.
     *
     * @param mode Mode bits
     * @return e.g. {@code FI_CONTEXT | FI_MSG_PREFIX}
     */
    public static String toString(long mode) {
        return NAMES.format(mode);
    }

    /**
     * Parses mode names.
     *
     * @param text e.g. {@code FI_CONTEXT|FI_MSG_PREFIX}
     * @return the Mode bits
     * @throws FabricException EINVAL on an unknown name
     */
    public static long parse(String text) {
        return NAMES.parse(text, "mode");
    }
}
