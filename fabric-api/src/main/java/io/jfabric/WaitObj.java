package io.jfabric;

/** Wait objects ({@code enum fi_wait_obj}). jfabric blocks in Java, so FD/MUTEX_COND/YIELD choose only how a blocking read waits. */
public enum WaitObj {
    /** {@code FI_WAIT_NONE}: no wait object: blocking reads are not supported. */
    NONE(0, "FI_WAIT_NONE"),
    /** {@code FI_WAIT_UNSPEC}: the provider picks how a blocking read waits. */
    UNSPEC(1, "FI_WAIT_UNSPEC"),
    /** {@code FI_WAIT_SET}: a wait set. */
    SET(2, "FI_WAIT_SET"),
    /** {@code FI_WAIT_FD}: a file descriptor. */
    FD(3, "FI_WAIT_FD"),
    /** {@code FI_WAIT_MUTEX_COND}: a mutex and condition variable. */
    MUTEX_COND(4, "FI_WAIT_MUTEX_COND"),
    /** {@code FI_WAIT_YIELD}: spin with yields. */
    YIELD(5, "FI_WAIT_YIELD"),
    /** {@code FI_WAIT_POLLFD}: a set of poll file descriptors. */
    POLLFD(6, "FI_WAIT_POLLFD");

    private final int value;
    private final String cName;

    WaitObj(int value, String cName) {
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
    public static WaitObj of(int v) {
        for (WaitObj e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no WaitObj with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
    public static WaitObj parse(String text) {
        String t = text.trim().toUpperCase();
        for (WaitObj e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_WAIT_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown WaitObj '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(WaitObj::cName).toList());
    }
}
