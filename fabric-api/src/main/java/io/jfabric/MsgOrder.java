package io.jfabric;

/** Message-ordering bits of {@code msg_order} / {@code comp_order}. */
public final class MsgOrder {
    public static final long NONE = 0;
    public static final long RAR = 1L;
    public static final long RAW = 1L << 1;
    public static final long RAS = 1L << 2;
    public static final long WAR = 1L << 3;
    public static final long WAW = 1L << 4;
    public static final long WAS = 1L << 5;
    public static final long SAR = 1L << 6;
    public static final long SAW = 1L << 7;
    public static final long SAS = 1L << 8;
    public static final long STRICT = 0x1FF;
    public static final long DATA = 1L << 16;
    public static final long RMA_RAR = 1L << 32;
    public static final long RMA_RAW = 1L << 33;
    public static final long RMA_WAR = 1L << 34;
    public static final long RMA_WAW = 1L << 35;
    public static final long ATOMIC_RAR = 1L << 36;
    public static final long ATOMIC_RAW = 1L << 37;
    public static final long ATOMIC_WAR = 1L << 38;
    public static final long ATOMIC_WAW = 1L << 39;

    private static final FlagNames NAMES = new FlagNames(
            RAR, "FI_ORDER_RAR", RAW, "FI_ORDER_RAW", RAS, "FI_ORDER_RAS", WAR, "FI_ORDER_WAR",
            WAW, "FI_ORDER_WAW", WAS, "FI_ORDER_WAS", SAR, "FI_ORDER_SAR", SAW, "FI_ORDER_SAW",
            SAS, "FI_ORDER_SAS", DATA, "FI_ORDER_DATA", RMA_RAR, "FI_ORDER_RMA_RAR", RMA_RAW, "FI_ORDER_RMA_RAW",
            RMA_WAR, "FI_ORDER_RMA_WAR", RMA_WAW, "FI_ORDER_RMA_WAW", ATOMIC_RAR, "FI_ORDER_ATOMIC_RAR",
            ATOMIC_RAW, "FI_ORDER_ATOMIC_RAW", ATOMIC_WAR, "FI_ORDER_ATOMIC_WAR", ATOMIC_WAW, "FI_ORDER_ATOMIC_WAW");

    private MsgOrder() {
    }

    public static String toString(long order) {
        return order == 0 ? "FI_ORDER_NONE" : NAMES.format(order);
    }
}
