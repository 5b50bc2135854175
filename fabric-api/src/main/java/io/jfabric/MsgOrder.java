package io.jfabric;

/** Message-ordering bits of {@code msg_order} / {@code comp_order}. */
public final class MsgOrder {
    /** {@code FI_ORDER_NONE}: no ordering between operations. */
    public static final long NONE = 0;
    /** {@code FI_ORDER_RAR}: a read is not started ahead of an earlier read to the same target. */
    public static final long RAR = 1L;
    /** {@code FI_ORDER_RAW}: a read is not started ahead of an earlier write to the same target. */
    public static final long RAW = 1L << 1;
    /** {@code FI_ORDER_RAS}: a read is not started ahead of an earlier send to the same target. */
    public static final long RAS = 1L << 2;
    /** {@code FI_ORDER_WAR}: a write is not started ahead of an earlier read to the same target. */
    public static final long WAR = 1L << 3;
    /** {@code FI_ORDER_WAW}: a write is not started ahead of an earlier write to the same target. */
    public static final long WAW = 1L << 4;
    /** {@code FI_ORDER_WAS}: a write is not started ahead of an earlier send to the same target. */
    public static final long WAS = 1L << 5;
    /** {@code FI_ORDER_SAR}: a send is not started ahead of an earlier read to the same target. */
    public static final long SAR = 1L << 6;
    /** {@code FI_ORDER_SAW}: a send is not started ahead of an earlier write to the same target. */
    public static final long SAW = 1L << 7;
    /** {@code FI_ORDER_SAS}: a send is not started ahead of an earlier send to the same target. */
    public static final long SAS = 1L << 8;
    /** {@code FI_ORDER_STRICT}: every one of RAR ... SAS. */
    public static final long STRICT = 0x1FF;
    /**
     * {@code FI_ORDER_DATA}: data of one operation is placed in order (the target sees no byte before an
     * earlier one).
     */
    public static final long DATA = 1L << 16;
    /** {@code FI_ORDER_RMA_RAR}: RMA read after RMA read. */
    public static final long RMA_RAR = 1L << 32;
    /** {@code FI_ORDER_RMA_RAW}: RMA read after RMA write. */
    public static final long RMA_RAW = 1L << 33;
    /** {@code FI_ORDER_RMA_WAR}: RMA write after RMA read. */
    public static final long RMA_WAR = 1L << 34;
    /** {@code FI_ORDER_RMA_WAW}: RMA write after RMA write. */
    public static final long RMA_WAW = 1L << 35;
    /** {@code FI_ORDER_ATOMIC_RAR}: atomic read after atomic read. */
    public static final long ATOMIC_RAR = 1L << 36;
    /** {@code FI_ORDER_ATOMIC_RAW}: atomic read after atomic write. */
    public static final long ATOMIC_RAW = 1L << 37;
    /** {@code FI_ORDER_ATOMIC_WAR}: atomic write after atomic read. */
    public static final long ATOMIC_WAR = 1L << 38;
    /** {@code FI_ORDER_ATOMIC_WAW}: atomic write after atomic write. */
    public static final long ATOMIC_WAW = 1L << 39;

    private static final FlagNames NAMES = new FlagNames(
            RAR, "FI_ORDER_RAR", RAW, "FI_ORDER_RAW", RAS, "FI_ORDER_RAS", WAR, "FI_ORDER_WAR",
            WAW, "FI_ORDER_WAW", WAS, "FI_ORDER_WAS", SAR, "FI_ORDER_SAR", SAW, "FI_ORDER_SAW",
            SAS, "FI_ORDER_SAS", DATA, "FI_ORDER_DATA", RMA_RAR, "FI_ORDER_RMA_RAR", RMA_RAW, "FI_ORDER_RMA_RAW",
            RMA_WAR, "FI_ORDER_RMA_WAR", RMA_WAW, "FI_ORDER_RMA_WAW", ATOMIC_RAR, "FI_ORDER_ATOMIC_RAR",
            ATOMIC_RAW, "FI_ORDER_ATOMIC_RAW", ATOMIC_WAR, "FI_ORDER_ATOMIC_WAR", ATOMIC_WAW, "FI_ORDER_ATOMIC_WAW");

    private MsgOrder() {
    }

    /**
     * Prints ordering bits as fi_tostr(FI_TYPE_MSG_ORDER) does.
     *
     * @param order MsgOrder bits
     * @return e.g. {@code FI_ORDER_SAS}; 0 prints as {@code FI_ORDER_NONE}
     */
    public static String toString(long order) {
        return order == 0 ? "FI_ORDER_NONE" : NAMES.format(order);
    }
}
