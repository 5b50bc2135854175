package io.jfabric;

/** Wait objects ({@code enum fi_wait_obj}). jfabric blocks in Java, so FD/MUTEX_COND/YIELD choose only how a blocking read waits. */
public enum WaitObj {
    NONE(0, "FI_WAIT_NONE"),
    UNSPEC(1, "FI_WAIT_UNSPEC"),
    SET(2, "FI_WAIT_SET"),
    FD(3, "FI_WAIT_FD"),
    MUTEX_COND(4, "FI_WAIT_MUTEX_COND"),
    YIELD(5, "FI_WAIT_YIELD"),
    POLLFD(6, "FI_WAIT_POLLFD");

    private final int value;
    private final String cName;

    WaitObj(int value, String cName) {
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
    public static WaitObj of(int v) {
        for (WaitObj e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no WaitObj with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
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
