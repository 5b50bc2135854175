package io.jfabric;

/** Progress models ({@code enum fi_progress}). */
public enum Progress {
    /** {@code FI_PROGRESS_UNSPEC}: no preference (hints) or not set. */
    UNSPEC(0, "FI_PROGRESS_UNSPEC"),
    /** {@code FI_PROGRESS_AUTO}: the provider moves operations forward on its own threads. */
    AUTO(1, "FI_PROGRESS_AUTO"),
    /** {@code FI_PROGRESS_MANUAL}: operations move forward only while the application reads a CQ, EQ or counter. */
    MANUAL(2, "FI_PROGRESS_MANUAL");

    private final int value;
    private final String cName;

    Progress(int value, String cName) {
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
    public static Progress of(int v) {
        for (Progress e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no Progress with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
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
