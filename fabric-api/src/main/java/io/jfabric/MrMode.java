package io.jfabric;

/** Memory-registration mode bits of {@code domain_attr.mr_mode}, libfabric's values. */
public final class MrMode {
    public static final int UNSPEC = 0;
    /** Legacy FI_MR_BASIC (enum value 1): must appear alone. */
    public static final int BASIC = 1;
    /** Legacy FI_MR_SCALABLE (enum value 2): must appear alone. */
    public static final int SCALABLE = 2;
    public static final int LOCAL = 1 << 2;
    public static final int RAW = 1 << 3;
    public static final int VIRT_ADDR = 1 << 4;
    public static final int ALLOCATED = 1 << 5;
    public static final int PROV_KEY = 1 << 6;
    public static final int MMU_NOTIFY = 1 << 7;
    public static final int RMA_EVENT = 1 << 8;
    public static final int ENDPOINT = 1 << 9;
    public static final int HMEM = 1 << 10;
    public static final int COLLECTIVE = 1 << 11;

    private static final FlagNames NAMES = new FlagNames(
            BASIC, "FI_MR_BASIC", SCALABLE, "FI_MR_SCALABLE", LOCAL, "FI_MR_LOCAL", RAW, "FI_MR_RAW",
            VIRT_ADDR, "FI_MR_VIRT_ADDR", ALLOCATED, "FI_MR_ALLOCATED", PROV_KEY, "FI_MR_PROV_KEY",
            MMU_NOTIFY, "FI_MR_MMU_NOTIFY", RMA_EVENT, "FI_MR_RMA_EVENT", ENDPOINT, "FI_MR_ENDPOINT",
            HMEM, "FI_MR_HMEM", COLLECTIVE, "FI_MR_COLLECTIVE");

    private MrMode() {
    }

    /** fi_tostr(FI_TYPE_MR_MODE) form; 0 prints as "[]" like fi_info does. */
    public static String toString(long mode) {
        return mode == 0 ? "" : NAMES.format(mode);
    }

    public static int parse(String text) {
        StringBuilder normalized = new StringBuilder();
        for (String part : text.split("[|,]")) {
            String n = part.trim().toUpperCase().replaceFirst("^FI_", "").replaceFirst("^MR_", "");
            if (!n.isEmpty()) {
                normalized.append(normalized.isEmpty() ? "" : "|").append("FI_MR_").append(n);
            }
        }
        return (int) NAMES.parse(normalized.toString(), "mr_mode");
    }
}
