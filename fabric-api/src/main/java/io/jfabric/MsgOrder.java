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

    private static final FlagNames NAMES = new FlagNames(
            RAR, "FI_ORDER_RAR", RAW, "FI_ORDER_RAW", RAS, "FI_ORDER_RAS", WAR, "FI_ORDER_WAR",
            WAW, "FI_ORDER_WAW", WAS, "FI_ORDER_WAS", SAR, "FI_ORDER_SAR", SAW, "FI_ORDER_SAW",
            SAS, "FI_ORDER_SAS", DATA, "FI_ORDER_DATA");

    private MsgOrder() {
    }

    public static String toString(long order) {
        return order == 0 ? "FI_ORDER_NONE" : NAMES.format(order);
    }
}
