package io.jfabric;

/** Resource management ({@code enum fi_resource_mgmt}). */
public enum ResourceMgmt {
    /** {@code FI_RM_UNSPEC}: no preference (hints) or not set. */
    UNSPEC(0, "FI_RM_UNSPEC"),
    /** {@code FI_RM_DISABLED}: the application keeps queues from overrunning. */
    DISABLED(1, "FI_RM_DISABLED"),
    /** {@code FI_RM_ENABLED}: the provider protects queues from overrunning (returns -FI_EAGAIN instead). */
    ENABLED(2, "FI_RM_ENABLED");

    private final int value;
    private final String cName;

    ResourceMgmt(int value, String cName) {
        this.value = value;
        this.cName = cName;
    }

    /**
     * libfabric's numeric value.
     *
     * @return the C enum value
     */
    public int value() {
        return value;
    }

    /**
     * libfabric's C name, as fi_tostr prints it.
     *
     * @return the name, e.g. {@code FI_EP_RDM}
     */
    public String cName() {
        return cName;
    }

    /**
     * The constant with libfabric's value {@code v}.
     *
     * @param v the C enum value
     * @return the constant
     * @throws FabricException EINVAL if no constant has that value
     */
    public static ResourceMgmt of(int v) {
        for (ResourceMgmt e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no ResourceMgmt with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
    public static ResourceMgmt parse(String text) {
        String t = text.trim().toUpperCase();
        for (ResourceMgmt e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_RM_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown ResourceMgmt '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(ResourceMgmt::cName).toList());
    }
}
