package io.jfabric;

/**
 * Operation flags ({@code tx_attr/rx_attr.op_flags}, the {@code flags} of the *msg calls) and the
 * flags of completion entries ({@code fi_cq_*_entry.flags}). libfabric shares these bits with caps;
 * FI_CLAIM and FI_DISCARD reuse the bits of FI_DIRECTED_RECV and FI_NAMED_RX_CTX.
 */
public final class OpFlags {
    public static final long MSG = Caps.MSG;
    public static final long RMA = Caps.RMA;
    public static final long TAGGED = Caps.TAGGED;
    public static final long ATOMIC = Caps.ATOMIC;
    public static final long READ = Caps.READ;
    public static final long WRITE = Caps.WRITE;
    public static final long RECV = Caps.RECV;
    public static final long SEND = Caps.SEND;
    public static final long REMOTE_READ = Caps.REMOTE_READ;
    public static final long REMOTE_WRITE = Caps.REMOTE_WRITE;
    public static final long MULTI_RECV = 1L << 16;
    public static final long REMOTE_CQ_DATA = 1L << 17;
    public static final long MORE = 1L << 18;
    public static final long PEEK = 1L << 19;
    public static final long TRIGGER = 1L << 20;
    public static final long FENCE = 1L << 21;
    public static final long COMPLETION = 1L << 24;
    public static final long INJECT = 1L << 25;
    public static final long INJECT_COMPLETE = 1L << 26;
    public static final long TRANSMIT_COMPLETE = 1L << 27;
    public static final long DELIVERY_COMPLETE = 1L << 28;
    public static final long AFFINITY = 1L << 29;
    public static final long COMMIT_COMPLETE = 1L << 30;
    public static final long MATCH_COMPLETE = 1L << 31;
    public static final long CLAIM = 1L << 59;
    public static final long DISCARD = 1L << 58;

    private static final FlagNames NAMES = new FlagNames(
            MSG, "FI_MSG", RMA, "FI_RMA", TAGGED, "FI_TAGGED", ATOMIC, "FI_ATOMIC", READ, "FI_READ",
            WRITE, "FI_WRITE", RECV, "FI_RECV", SEND, "FI_SEND", REMOTE_READ, "FI_REMOTE_READ",
            REMOTE_WRITE, "FI_REMOTE_WRITE", MULTI_RECV, "FI_MULTI_RECV", REMOTE_CQ_DATA, "FI_REMOTE_CQ_DATA",
            MORE, "FI_MORE", PEEK, "FI_PEEK", TRIGGER, "FI_TRIGGER", FENCE, "FI_FENCE",
            COMPLETION, "FI_COMPLETION", INJECT, "FI_INJECT", INJECT_COMPLETE, "FI_INJECT_COMPLETE",
            TRANSMIT_COMPLETE, "FI_TRANSMIT_COMPLETE", DELIVERY_COMPLETE, "FI_DELIVERY_COMPLETE",
            AFFINITY, "FI_AFFINITY", COMMIT_COMPLETE, "FI_COMMIT_COMPLETE", MATCH_COMPLETE, "FI_MATCH_COMPLETE",
            CLAIM, "FI_CLAIM", DISCARD, "FI_DISCARD");

    private OpFlags() {
    }

    public static String toString(long flags) {
        return NAMES.format(flags);
    }

    public static long parse(String text) {
        return NAMES.parse(text, "op");
    }
}
