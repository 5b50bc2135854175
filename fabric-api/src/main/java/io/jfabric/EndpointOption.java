package io.jfabric;

/** Endpoint options of {@code fi_getopt/fi_setopt} at level FI_OPT_ENDPOINT. */
public enum EndpointOption {
    /** {@code FI_OPT_MIN_MULTI_RECV}: the free space, in bytes, below which an FI_MULTI_RECV buffer is released. */
    MIN_MULTI_RECV(0, "FI_OPT_MIN_MULTI_RECV"),
    /** {@code FI_OPT_CM_DATA_SIZE}: the largest connection data, in bytes, of connect, accept and reject. */
    CM_DATA_SIZE(1, "FI_OPT_CM_DATA_SIZE"),
    /** {@code FI_OPT_BUFFERED_MIN}: bytes of an unexpected message the provider buffers before the receive is posted. */
    BUFFERED_MIN(2, "FI_OPT_BUFFERED_MIN"),
    /** {@code FI_OPT_BUFFERED_LIMIT}: the largest unexpected message, in bytes, the provider buffers whole. */
    BUFFERED_LIMIT(3, "FI_OPT_BUFFERED_LIMIT"),
    /** {@code FI_OPT_SEND_BUF_SIZE}: the socket send buffer size, in bytes. */
    SEND_BUF_SIZE(4, "FI_OPT_SEND_BUF_SIZE"),
    /** {@code FI_OPT_RECV_BUF_SIZE}: the socket receive buffer size, in bytes. */
    RECV_BUF_SIZE(5, "FI_OPT_RECV_BUF_SIZE"),
    /** {@code FI_OPT_TX_SIZE}: transmit operations that may be outstanding. */
    TX_SIZE(6, "FI_OPT_TX_SIZE"),
    /** {@code FI_OPT_RX_SIZE}: receives that may be posted. */
    RX_SIZE(7, "FI_OPT_RX_SIZE"),
    /**
     * jfabric only, no libfabric counterpart: 1 when a send posted after another with no progress call between
     * them may wait for the next progress call, so that a burst leaves together (jfabric's tcp under manual
     * progress); 0 when every send is written when posted. A layer that posts its own protocol messages from
     * inside its progress (tcp;ofi_rxm over its core) sets 0.
     */
    COALESCE_SENDS(0x4A460001, "FI_OPT_JF_COALESCE_SENDS");

    private final int value;
    private final String cName;

    EndpointOption(int value, String cName) {
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
     * libfabric's C name.
     *
     * @return the name, e.g. {@code FI_OPT_CM_DATA_SIZE}
     */
    public String cName() {
        return cName;
    }

    /**
     * The constant with libfabric's value {@code v}.
     *
     * @param v the C value
     * @return the constant
     * @throws FabricException EINVAL if no constant has that value
     */
    public static EndpointOption of(int v) {
        for (EndpointOption e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no EndpointOption with value " + v);
    }

    /**
     * Parses a name.
     *
     * @param text "FI_OPT_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
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
