package io.jfabric;

/** Completion-entry formats ({@code enum fi_cq_format}); each extends the previous by prefix. */
public enum CqFormat {
    UNSPEC(0, "FI_CQ_FORMAT_UNSPEC"),
    CONTEXT(1, "FI_CQ_FORMAT_CONTEXT"),
    MSG(2, "FI_CQ_FORMAT_MSG"),
    DATA(3, "FI_CQ_FORMAT_DATA"),
    TAGGED(4, "FI_CQ_FORMAT_TAGGED");

    private final int value;
    private final String cName;

    CqFormat(int value, String cName) {
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
    public static CqFormat of(int v) {
        for (CqFormat e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no CqFormat with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
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
