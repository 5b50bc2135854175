package io.jfabric;

/**
 * Mode bits of {@code fi_info.mode}: requirements the application accepts. A provider is
 * offered only when the hint's mode covers every mode bit it needs (a mode hint of 0 accepts none).
 */
public final class Mode {
    public static final long CONTEXT = 1L << 59;
    public static final long MSG_PREFIX = 1L << 58;
    public static final long ASYNC_IOV = 1L << 57;
    public static final long RX_CQ_DATA = 1L << 56;
    public static final long LOCAL_MR = 1L << 55;
    public static final long NOTIFY_FLAGS_ONLY = 1L << 54;
    public static final long RESTRICTED_COMP = 1L << 53;
    public static final long CONTEXT2 = 1L << 52;
    public static final long BUFFERED_RECV = 1L << 51;

    private static final FlagNames NAMES = new FlagNames(
            CONTEXT, "FI_CONTEXT", MSG_PREFIX, "FI_MSG_PREFIX", ASYNC_IOV, "FI_ASYNC_IOV",
            RX_CQ_DATA, "FI_RX_CQ_DATA", LOCAL_MR, "FI_LOCAL_MR", NOTIFY_FLAGS_ONLY, "FI_NOTIFY_FLAGS_ONLY",
            RESTRICTED_COMP, "FI_RESTRICTED_COMP", CONTEXT2, "FI_CONTEXT2", BUFFERED_RECV, "FI_BUFFERED_RECV");

    private Mode() {
    }

    public static String toString(long mode) {
        return NAMES.format(mode);
    }

    public static long parse(String text) {
        return NAMES.parse(text, "mode");
    }
}
