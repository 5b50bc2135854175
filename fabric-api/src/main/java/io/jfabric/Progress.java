package io.jfabric;

/** Progress models ({@code enum fi_progress}). */
public enum Progress {
    UNSPEC(0, "FI_PROGRESS_UNSPEC"),
    AUTO(1, "FI_PROGRESS_AUTO"),
    MANUAL(2, "FI_PROGRESS_MANUAL");

    private final int value;
    private final String cName;

    Progress(int value, String cName) {
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
    public static Progress of(int v) {
        for (Progress e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no Progress with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
    public static Progress parse(String text) {
        String t = text.trim().toUpperCase();
        for (Progress e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_PROGRESS_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown Progress '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(Progress::cName).toList());
    }
}
