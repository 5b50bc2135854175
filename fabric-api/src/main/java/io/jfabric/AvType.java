package io.jfabric;

/** Address-vector types ({@code enum fi_av_type}). */
public enum AvType {
    /** {@code FI_AV_UNSPEC}: no preference (hints) or not set. */
    UNSPEC(0, "FI_AV_UNSPEC"),
    /** {@code FI_AV_MAP}: fi_addr values are provider-chosen handles. */
    MAP(1, "FI_AV_MAP"),
    /** {@code FI_AV_TABLE}: fi_addr values are insertion indexes 0, 1, 2 .... */
    TABLE(2, "FI_AV_TABLE");

    private final int value;
    private final String cName;

    AvType(int value, String cName) {
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
    public static AvType of(int v) {
        for (AvType e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no AvType with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
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
