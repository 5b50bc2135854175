package io.jfabric;

/** Completion-entry formats ({@code enum fi_cq_format}); each extends the previous by prefix. */
public enum CqFormat {
    /** {@code FI_CQ_FORMAT_UNSPEC}: no preference: the provider picks. */
    UNSPEC(0, "FI_CQ_FORMAT_UNSPEC"),
    /** {@code FI_CQ_FORMAT_CONTEXT}: op_context only. */
    CONTEXT(1, "FI_CQ_FORMAT_CONTEXT"),
    /** {@code FI_CQ_FORMAT_MSG}: adds flags and len. */
    MSG(2, "FI_CQ_FORMAT_MSG"),
    /** {@code FI_CQ_FORMAT_DATA}: adds buf and remote CQ data. */
    DATA(3, "FI_CQ_FORMAT_DATA"),
    /** {@code FI_CQ_FORMAT_TAGGED}: adds the tag. */
    TAGGED(4, "FI_CQ_FORMAT_TAGGED");

    private final int value;
    private final String cName;

    CqFormat(int value, String cName) {
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
    public static CqFormat of(int v) {
        for (CqFormat e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no CqFormat with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
    public static CqFormat parse(String text) {
        String t = text.trim().toUpperCase();
        for (CqFormat e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_CQ_FORMAT_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown CqFormat '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(CqFormat::cName).toList());
    }
}
