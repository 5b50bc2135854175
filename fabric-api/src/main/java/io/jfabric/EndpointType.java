package io.jfabric;

/** Endpoint types ({@code enum fi_ep_type}). */
public enum EndpointType {
    /** {@code FI_EP_UNSPEC}: no preference (hints) or not set. */
    UNSPEC(0, "FI_EP_UNSPEC"),
    /** {@code FI_EP_MSG}: reliable, connection-oriented (fi_connect/fi_accept). */
    MSG(1, "FI_EP_MSG"),
    /** {@code FI_EP_DGRAM}: unreliable datagrams. */
    DGRAM(2, "FI_EP_DGRAM"),
    /** {@code FI_EP_RDM}: reliable, connectionless: peers are fi_addr values of an AV. */
    RDM(3, "FI_EP_RDM"),
    /** {@code FI_EP_SOCK_STREAM}: socket-like byte stream. */
    SOCK_STREAM(4, "FI_EP_SOCK_STREAM"),
    /** {@code FI_EP_SOCK_DGRAM}: socket-like datagrams. */
    SOCK_DGRAM(5, "FI_EP_SOCK_DGRAM");

    private final int value;
    private final String cName;

    EndpointType(int value, String cName) {
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
    public static EndpointType of(int v) {
        for (EndpointType e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no EndpointType with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
    public static EndpointType parse(String text) {
        String t = text.trim().toUpperCase();
        for (EndpointType e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_EP_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown EndpointType '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(EndpointType::cName).toList());
    }
}
