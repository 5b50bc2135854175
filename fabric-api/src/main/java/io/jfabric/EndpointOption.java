package io.jfabric;

/** Endpoint options of {@code fi_getopt/fi_setopt} at level FI_OPT_ENDPOINT. */
public enum EndpointOption {
    MIN_MULTI_RECV(0, "FI_OPT_MIN_MULTI_RECV"),
    CM_DATA_SIZE(1, "FI_OPT_CM_DATA_SIZE"),
    BUFFERED_MIN(2, "FI_OPT_BUFFERED_MIN"),
    BUFFERED_LIMIT(3, "FI_OPT_BUFFERED_LIMIT"),
    SEND_BUF_SIZE(4, "FI_OPT_SEND_BUF_SIZE"),
    RECV_BUF_SIZE(5, "FI_OPT_RECV_BUF_SIZE"),
    TX_SIZE(6, "FI_OPT_TX_SIZE"),
    RX_SIZE(7, "FI_OPT_RX_SIZE");

    private final int value;
    private final String cName;

    EndpointOption(int value, String cName) {
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
    public static EndpointOption of(int v) {
        for (EndpointOption e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no EndpointOption with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
    public static EndpointOption parse(String text) {
        String t = text.trim().toUpperCase();
        for (EndpointOption e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_OPT_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown EndpointOption '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(EndpointOption::cName).toList());
    }
}
