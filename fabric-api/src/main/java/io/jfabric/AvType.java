package io.jfabric;

/** Address-vector types ({@code enum fi_av_type}). */
public enum AvType {
    UNSPEC(0, "FI_AV_UNSPEC"),
    MAP(1, "FI_AV_MAP"),
    TABLE(2, "FI_AV_TABLE");

    private final int value;
    private final String cName;

    AvType(int value, String cName) {
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
    public static AvType of(int v) {
        for (AvType e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no AvType with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
    public static AvType parse(String text) {
        String t = text.trim().toUpperCase();
        for (AvType e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_AV_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown AvType '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(AvType::cName).toList());
    }
}
