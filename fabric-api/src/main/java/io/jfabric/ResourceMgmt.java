package io.jfabric;

/** Resource management ({@code enum fi_resource_mgmt}). */
public enum ResourceMgmt {
    UNSPEC(0, "FI_RM_UNSPEC"),
    DISABLED(1, "FI_RM_DISABLED"),
    ENABLED(2, "FI_RM_ENABLED");

    private final int value;
    private final String cName;

    ResourceMgmt(int value, String cName) {
        this.value = value;
        this.cName = cName;
    }

    /** libfabric's numeric value. */
    public int value() {
        return value;
    }

    /** libfabric's C name, as fi_tostr prints it. */
    public String cName() {
        return cName;
    }

    /** The constant with libfabric's value {@code v}; throws FabricException(EINVAL) if none. */
    public static ResourceMgmt of(int v) {
        for (ResourceMgmt e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no ResourceMgmt with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
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
