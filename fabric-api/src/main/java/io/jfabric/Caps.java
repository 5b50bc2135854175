package io.jfabric;

/**
 * Capability bits of {@code fi_info.caps}, {@code tx_attr.caps} and {@code rx_attr.caps}, with
 * libfabric's values. Primary caps are returned only when asked for; secondary caps a provider may add.
 */
public final class Caps {
    public static final long MSG = 1L << 1;
    public static final long RMA = 1L << 2;
    public static final long TAGGED = 1L << 3;
    public static final long ATOMIC = 1L << 4;
    public static final long MULTICAST = 1L << 5;
    public static final long COLLECTIVE = 1L << 6;
    public static final long READ = 1L << 8;
    public static final long WRITE = 1L << 9;
    public static final long RECV = 1L << 10;
    public static final long SEND = 1L << 11;
    public static final long REMOTE_READ = 1L << 12;
    public static final long REMOTE_WRITE = 1L << 13;
    public static final long MULTI_RECV = 1L << 16;
    public static final long TRIGGER = 1L << 20;
    public static final long FENCE = 1L << 21;
    public static final long AV_USER_ID = 1L << 41;
    public static final long HMEM = 1L << 47;
    public static final long VARIABLE_MSG = 1L << 48;
    public static final long RMA_PMEM = 1L << 49;
    public static final long SOURCE_ERR = 1L << 50;
    public static final long LOCAL_COMM = 1L << 51;
    public static final long REMOTE_COMM = 1L << 52;
    public static final long SHARED_AV = 1L << 53;
    public static final long RMA_EVENT = 1L << 56;
    public static final long SOURCE = 1L << 57;
    public static final long NAMED_RX_CTX = 1L << 58;
    public static final long DIRECTED_RECV = 1L << 59;

    /**
     * Caps a provider returns only when the application asks for them: libfabric's OFI_PRIMARY_CAPS,
     * which includes the direction bits and LOCAL_COMM/REMOTE_COMM.
     */
    public static final long PRIMARY = MSG | RMA | TAGGED | ATOMIC | MULTICAST | COLLECTIVE | NAMED_RX_CTX
            | DIRECTED_RECV | VARIABLE_MSG | HMEM | READ | WRITE | SEND | RECV | REMOTE_READ | REMOTE_WRITE
            | LOCAL_COMM | REMOTE_COMM;
    /** Caps a provider may add on its own: libfabric's OFI_SECONDARY_CAPS plus FI_AV_USER_ID. */
    public static final long SECONDARY = MULTI_RECV | SOURCE | RMA_EVENT | SHARED_AV | TRIGGER | FENCE
            | SOURCE_ERR | RMA_PMEM | AV_USER_ID;
    /** Direction modifiers of MSG/TAGGED/ATOMIC. */
    public static final long MSG_DIRECTIONS = SEND | RECV;
    /** Direction modifiers of RMA/ATOMIC. */
    public static final long RMA_DIRECTIONS = READ | WRITE | REMOTE_READ | REMOTE_WRITE;

    private static final FlagNames NAMES = new FlagNames(
            MSG, "FI_MSG", RMA, "FI_RMA", TAGGED, "FI_TAGGED", ATOMIC, "FI_ATOMIC", MULTICAST, "FI_MULTICAST",
            COLLECTIVE, "FI_COLLECTIVE", READ, "FI_READ", WRITE, "FI_WRITE", RECV, "FI_RECV", SEND, "FI_SEND",
            REMOTE_READ, "FI_REMOTE_READ", REMOTE_WRITE, "FI_REMOTE_WRITE", MULTI_RECV, "FI_MULTI_RECV",
            TRIGGER, "FI_TRIGGER", FENCE, "FI_FENCE", AV_USER_ID, "FI_AV_USER_ID", HMEM, "FI_HMEM",
            VARIABLE_MSG, "FI_VARIABLE_MSG", RMA_PMEM, "FI_RMA_PMEM", SOURCE_ERR, "FI_SOURCE_ERR",
            LOCAL_COMM, "FI_LOCAL_COMM", REMOTE_COMM, "FI_REMOTE_COMM", SHARED_AV, "FI_SHARED_AV",
            RMA_EVENT, "FI_RMA_EVENT", SOURCE, "FI_SOURCE", NAMED_RX_CTX, "FI_NAMED_RX_CTX",
            DIRECTED_RECV, "FI_DIRECTED_RECV");

    private Caps() {
    }

    /** fi_tostr(FI_TYPE_CAPS) form: "FI_MSG | FI_RMA | ...". */
    public static String toString(long caps) {
        return NAMES.format(caps);
    }

    /** Parses names such as "FI_MSG|FI_TAGGED" or "msg,tagged". */
    public static long parse(String text) {
        return NAMES.parse(text, "caps");
    }
}
