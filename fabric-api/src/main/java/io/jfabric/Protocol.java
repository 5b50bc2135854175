package io.jfabric;

/** Endpoint protocols ({@code enum fi_protocol}), those jfabric's providers report plus the common native ones. */
public enum Protocol {
    UNSPEC(0, "FI_PROTO_UNSPEC"),
    RDMA_CM_IB_RC(1, "FI_PROTO_RDMA_CM_IB_RC"),
    IWARP(2, "FI_PROTO_IWARP"),
    IB_UD(3, "FI_PROTO_IB_UD"),
    PSMX(4, "FI_PROTO_PSMX"),
    UDP(5, "FI_PROTO_UDP"),
    SOCK_TCP(6, "FI_PROTO_SOCK_TCP"),
    MXM(7, "FI_PROTO_MXM"),
    IWARP_RDM(8, "FI_PROTO_IWARP_RDM"),
    IB_RDM(9, "FI_PROTO_IB_RDM"),
    GNI(10, "FI_PROTO_GNI"),
    RXM(11, "FI_PROTO_RXM"),
    RXD(12, "FI_PROTO_RXD"),
    MLX(13, "FI_PROTO_MLX"),
    NETWORKDIRECT(14, "FI_PROTO_NETWORKDIRECT"),
    PSMX2(15, "FI_PROTO_PSMX2"),
    SHM(16, "FI_PROTO_SHM"),
    MRAIL(17, "FI_PROTO_MRAIL"),
    RSTREAM(18, "FI_PROTO_RSTREAM"),
    RDMA_CM_IB_XRC(19, "FI_PROTO_RDMA_CM_IB_XRC"),
    EFA(20, "FI_PROTO_EFA"),
    PSMX3(21, "FI_PROTO_PSMX3"),
    RXM_TCP(22, "FI_PROTO_RXM_TCP"),
    OPX(23, "FI_PROTO_OPX"),
    CXI(24, "FI_PROTO_CXI"),
    XNET(25, "FI_PROTO_XNET");

    private final int value;
    private final String cName;

    Protocol(int value, String cName) {
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
    public static Protocol of(int v) {
        for (Protocol e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no Protocol with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
    public static Protocol parse(String text) {
        String t = text.trim().toUpperCase();
        for (Protocol e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_PROTO_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown Protocol '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(Protocol::cName).toList());
    }
}
