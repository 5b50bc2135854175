package io.jfabric;

/** Memory-registration mode bits of {@code domain_attr.mr_mode}, libfabric's values. */
public final class MrMode {
    /** No mr_mode bits: no preference (hints) or none required. */
    public static final int UNSPEC = 0;
    /** Legacy FI_MR_BASIC (enum value 1): must appear alone. */
    public static final int BASIC = 1;
    /** Legacy FI_MR_SCALABLE (enum value 2): must appear alone. */
    public static final int SCALABLE = 2;
    /** {@code FI_MR_LOCAL}: local buffers of data-path calls must be registered and passed as {@code desc}. */
    public static final int LOCAL = 1 << 2;
    /** {@code FI_MR_RAW}: keys are larger than 64 bits (fi_mr_raw_attr). */
    public static final int RAW = 1 << 3;
    /**
     * {@code FI_MR_VIRT_ADDR}: RMA addresses the target by its virtual address; without it, by the offset into
     * the region.
     */
    public static final int VIRT_ADDR = 1 << 4;
    /** {@code FI_MR_ALLOCATED}: only memory that is allocated (backed) may be registered. */
    public static final int ALLOCATED = 1 << 5;
    /** {@code FI_MR_PROV_KEY}: the provider chooses the key; read it with {@link MemoryRegion#key()}. */
    public static final int PROV_KEY = 1 << 6;
    /** {@code FI_MR_MMU_NOTIFY}: the application reports changes to registered pages (fi_mr_refresh). */
    public static final int MMU_NOTIFY = 1 << 7;
    /** {@code FI_MR_RMA_EVENT}: a region must be bound and enabled before it can count remote accesses. */
    public static final int RMA_EVENT = 1 << 8;
    /** {@code FI_MR_ENDPOINT}: a region is bound to an endpoint before use. */
    public static final int ENDPOINT = 1 << 9;
    /** {@code FI_MR_HMEM}: device memory must be registered for every use. */
    public static final int HMEM = 1 << 10;
    /** {@code FI_MR_COLLECTIVE}: memory used in collectives must be registered. */
    public static final int COLLECTIVE = 1 << 11;

    private static final FlagNames NAMES = new FlagNames(
            BASIC, "FI_MR_BASIC", SCALABLE, "FI_MR_SCALABLE", LOCAL, "FI_MR_LOCAL", RAW, "FI_MR_RAW",
            VIRT_ADDR, "FI_MR_VIRT_ADDR", ALLOCATED, "FI_MR_ALLOCATED", PROV_KEY, "FI_MR_PROV_KEY",
            MMU_NOTIFY, "FI_MR_MMU_NOTIFY", RMA_EVENT, "FI_MR_RMA_EVENT", ENDPOINT, "FI_MR_ENDPOINT",
            HMEM, "FI_MR_HMEM", COLLECTIVE, "FI_MR_COLLECTIVE");

    private MrMode() {
    }

    /**
     * Prints mr_mode bits as fi_tostr(FI_TYPE_MR_MODE) does.
     *
     * @param mode MrMode bits
     * @return e.g. {@code FI_MR_LOCAL | FI_MR_VIRT_ADDR}; 0 prints as the empty string (fi_info shows {@code [
     *     ]})
     */
    public static String toString(long mode) {
        return mode == 0 ? "" : NAMES.format(mode);
    }

    /**
     * Parses mr_mode names, with or without the {@code FI_MR_} prefix.
     *
     * @param text e.g. {@code FI_MR_LOCAL|virt_addr}
     * @return the MrMode bits
     * @throws FabricException EINVAL on an unknown name
     */
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
