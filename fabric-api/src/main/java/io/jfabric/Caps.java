package io.jfabric;

/**
 * Capability bits of {@code fi_info.caps}, {@code tx_attr.caps} and {@code rx_attr.caps}, with
 * libfabric's values. Primary caps are returned only when asked for; secondary caps a provider may add.
 */
public final class Caps {
    /** {@code FI_MSG}: send and receive of untagged messages (fi_msg(3)). */
    public static final long MSG = 1L << 1;
    /** {@code FI_RMA}: remote memory read and write (fi_rma(3)). */
    public static final long RMA = 1L << 2;
    /** {@code FI_TAGGED}: tagged messages (fi_tagged(3)). */
    public static final long TAGGED = 1L << 3;
    /** {@code FI_ATOMIC}: remote atomic operations (fi_atomic(3)). */
    public static final long ATOMIC = 1L << 4;
    /** {@code FI_MULTICAST}: multicast data transfers. */
    public static final long MULTICAST = 1L << 5;
    /** {@code FI_COLLECTIVE}: collective operations. */
    public static final long COLLECTIVE = 1L << 6;
    /** {@code FI_READ}: with RMA or ATOMIC, this side initiates reads. */
    public static final long READ = 1L << 8;
    /** {@code FI_WRITE}: with RMA or ATOMIC, this side initiates writes. */
    public static final long WRITE = 1L << 9;
    /** {@code FI_RECV}: with MSG or TAGGED, this side receives. */
    public static final long RECV = 1L << 10;
    /** {@code FI_SEND}: with MSG or TAGGED, this side sends. */
    public static final long SEND = 1L << 11;
    /** {@code FI_REMOTE_READ}: peers may read this side's registered memory. */
    public static final long REMOTE_READ = 1L << 12;
    /** {@code FI_REMOTE_WRITE}: peers may write this side's registered memory. */
    public static final long REMOTE_WRITE = 1L << 13;
    /** {@code FI_MULTI_RECV}: one posted receive buffer takes several messages. */
    public static final long MULTI_RECV = 1L << 16;
    /** {@code FI_TRIGGER}: triggered operations (posted to run when a counter reaches a threshold). */
    public static final long TRIGGER = 1L << 20;
    /** {@code FI_FENCE}: an operation may wait for all earlier ones to complete. */
    public static final long FENCE = 1L << 21;
    /** {@code FI_AV_USER_ID}: the AV stores an application-chosen id per address, reported as the source. */
    public static final long AV_USER_ID = 1L << 41;
    /** {@code FI_HMEM}: buffers may be device (GPU) memory. */
    public static final long HMEM = 1L << 47;
    /** {@code FI_VARIABLE_MSG}: the receiver learns a message's size before supplying the buffer. */
    public static final long VARIABLE_MSG = 1L << 48;
    /** {@code FI_RMA_PMEM}: RMA into persistent memory. */
    public static final long RMA_PMEM = 1L << 49;
    /** {@code FI_SOURCE_ERR}: a receive from an address not in the AV reports the raw source in an error entry. */
    public static final long SOURCE_ERR = 1L << 50;
    /** {@code FI_LOCAL_COMM}: peers on the same node are reachable. */
    public static final long LOCAL_COMM = 1L << 51;
    /** {@code FI_REMOTE_COMM}: peers on other nodes are reachable. */
    public static final long REMOTE_COMM = 1L << 52;
    /** {@code FI_SHARED_AV}: an AV may be shared between processes. */
    public static final long SHARED_AV = 1L << 53;
    /** {@code FI_RMA_EVENT}: remote RMA accesses to this side are counted or reported. */
    public static final long RMA_EVENT = 1L << 56;
    /** {@code FI_SOURCE}: receive completions report the sender's fi_addr ({@code CompletionQueue.readFrom}). */
    public static final long SOURCE = 1L << 57;
    /** {@code FI_NAMED_RX_CTX}: a sender may address one receive context of a scalable endpoint. */
    public static final long NAMED_RX_CTX = 1L << 58;
    /** {@code FI_DIRECTED_RECV}: a receive posted with a source address matches only that source. */
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

    /**
     * Prints caps as fi_tostr(FI_TYPE_CAPS) does.
     *
     * @param caps Caps bits
     * @return e.g. {@code FI_MSG | FI_RMA}; bits without a name print in hex
     */
    public static String toString(long caps) {
        return NAMES.format(caps);
    }

    /**
     * Parses caps names.
     *
     * @param text e.g. {@code FI_MSG|FI_TAGGED} or {@code msg,tagged}
     * @return the Caps bits
     * @throws FabricException EINVAL on an unknown name
     */
    public static long parse(String text) {
        return NAMES.parse(text, "caps");
    }
}
