package io.jfabric;

/** Endpoint types ({@code enum fi_ep_type}). */
public enum EndpointType {
    UNSPEC(0, "FI_EP_UNSPEC"),
    MSG(1, "FI_EP_MSG"),
    DGRAM(2, "FI_EP_DGRAM"),
    RDM(3, "FI_EP_RDM"),
    SOCK_STREAM(4, "FI_EP_SOCK_STREAM"),
    SOCK_DGRAM(5, "FI_EP_SOCK_DGRAM");

    private final int value;
    private final String cName;

    EndpointType(int value, String cName) {
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
    public static EndpointType of(int v) {
        for (EndpointType e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no EndpointType with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
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
