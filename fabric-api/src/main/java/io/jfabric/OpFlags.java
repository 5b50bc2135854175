package io.jfabric;

/**
 * Operation flags ({@code tx_attr/rx_attr.op_flags}, the {@code flags} of the *msg calls) and the
 * flags of completion entries ({@code fi_cq_*_entry.flags}). libfabric shares these bits with caps;
 * FI_CLAIM and FI_DISCARD reuse the bits of FI_DIRECTED_RECV and FI_NAMED_RX_CTX.
 */
public final class OpFlags {
    /** {@code FI_MSG}: in a completion, the operation's kind; the same bit as {@link Caps#MSG}. */
    public static final long MSG = Caps.MSG;
    /** {@code FI_RMA}: in a completion, the operation's kind; the same bit as {@link Caps#RMA}. */
    public static final long RMA = Caps.RMA;
    /** {@code FI_TAGGED}: in a completion, the operation's kind; the same bit as {@link Caps#TAGGED}. */
    public static final long TAGGED = Caps.TAGGED;
    /** {@code FI_ATOMIC}: in a completion, the operation's kind; the same bit as {@link Caps#ATOMIC}. */
    public static final long ATOMIC = Caps.ATOMIC;
    /** {@code FI_READ}: in a completion, the operation's kind; the same bit as {@link Caps#READ}. */
    public static final long READ = Caps.READ;
    /** {@code FI_WRITE}: in a completion, the operation's kind; the same bit as {@link Caps#WRITE}. */
    public static final long WRITE = Caps.WRITE;
    /** {@code FI_RECV}: in a completion, the operation's kind; the same bit as {@link Caps#RECV}. */
    public static final long RECV = Caps.RECV;
    /** {@code FI_SEND}: in a completion, the operation's kind; the same bit as {@link Caps#SEND}. */
    public static final long SEND = Caps.SEND;
    /** {@code FI_REMOTE_READ}: in a completion, the operation's kind; the same bit as {@link Caps#REMOTE_READ}. */
    public static final long REMOTE_READ = Caps.REMOTE_READ;
    /**
     * {@code FI_REMOTE_WRITE}: in a completion, the operation's kind; the same bit as {@link
     * Caps#REMOTE_WRITE}.
     */
    public static final long REMOTE_WRITE = Caps.REMOTE_WRITE;
    /**
     * {@code FI_MULTI_RECV}: on a receive, the buffer takes several messages; in a completion, the buffer is
     * released.
     */
    public static final long MULTI_RECV = 1L << 16;
    /** {@code FI_REMOTE_CQ_DATA}: the operation carries remote CQ data; in a completion, {@code data} holds it. */
    public static final long REMOTE_CQ_DATA = 1L << 17;
    /**
     * {@code FI_MORE}: more operations follow at once; the provider may defer sending until one comes without
     * it.
     */
    public static final long MORE = 1L << 18;
    /**
     * {@code FI_PEEK}: look for a matching message without receiving it (fi_trecvmsg), or read an EQ entry
     * without taking it.
     */
    public static final long PEEK = 1L << 19;
    /** {@code FI_TRIGGER}: a triggered operation. */
    public static final long TRIGGER = 1L << 20;
    /** {@code FI_FENCE}: the operation starts only after every earlier one on the endpoint has completed. */
    public static final long FENCE = 1L << 21;
    /**
     * {@code FI_COMPLETION}: generate a success completion even when the CQ was bound with
     * FI_SELECTIVE_COMPLETION.
     */
    public static final long COMPLETION = 1L << 24;
    /** {@code FI_INJECT}: the buffer may be reused as soon as the call returns (size up to inject_size). */
    public static final long INJECT = 1L << 25;
    /** {@code FI_INJECT_COMPLETE}: complete once the buffer may be reused. */
    public static final long INJECT_COMPLETE = 1L << 26;
    /**
     * {@code FI_TRANSMIT_COMPLETE}: complete once the data has left this side and the peer holds it (or will
     * not lose it).
     */
    public static final long TRANSMIT_COMPLETE = 1L << 27;
    /**
     * {@code FI_DELIVERY_COMPLETE}: complete once the data is visible at the target (placed in the receive
     * buffer or target memory).
     */
    public static final long DELIVERY_COMPLETE = 1L << 28;
    /** {@code FI_AFFINITY}: tx/rx context affinity. */
    public static final long AFFINITY = 1L << 29;
    /** {@code FI_COMMIT_COMPLETE}: complete once the data is persistent at the target. */
    public static final long COMMIT_COMPLETE = 1L << 30;
    /** {@code FI_MATCH_COMPLETE}: complete once the peer has matched the message to a receive. */
    public static final long MATCH_COMPLETE = 1L << 31;
    /** {@code FI_CLAIM}: receive the message an earlier FI_PEEK found (same bit as FI_DIRECTED_RECV). */
    public static final long CLAIM = 1L << 59;
    /** {@code FI_DISCARD}: drop the message an earlier FI_PEEK found (same bit as FI_NAMED_RX_CTX). */
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

    /**
     * Prints op flags as fi_tostr(FI_TYPE_OP_FLAGS) does.
     *
     * @param flags OpFlags bits
     * @return e.g. {@code FI_SEND | FI_MSG}; bits without a name print in hex
     */
    public static String toString(long flags) {
        return NAMES.format(flags);
    }

    /**
     * Parses op-flag names.
     *
     * @param text e.g. {@code FI_INJECT|FI_COMPLETION} or {@code inject,completion}
     * @return the OpFlags bits
     * @throws FabricException EINVAL on an unknown name
     */
    public static long parse(String text) {
        return NAMES.parse(text, "op");
    }
}
