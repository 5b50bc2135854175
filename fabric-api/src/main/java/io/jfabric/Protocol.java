package io.jfabric;

/** Endpoint protocols ({@code enum fi_protocol}), those jfabric's providers report plus the common native ones. */
public enum Protocol {
    /** {@code FI_PROTO_UNSPEC}: no preference (hints) or not set. */
    UNSPEC(0, "FI_PROTO_UNSPEC"),
    /** {@code FI_PROTO_RDMA_CM_IB_RC}: InfiniBand RC queue pairs set up with rdma_cm. */
    RDMA_CM_IB_RC(1, "FI_PROTO_RDMA_CM_IB_RC"),
    /** {@code FI_PROTO_IWARP}. */
    IWARP(2, "FI_PROTO_IWARP"),
    /** {@code FI_PROTO_IB_UD}. */
    IB_UD(3, "FI_PROTO_IB_UD"),
    /** {@code FI_PROTO_PSMX}. */
    PSMX(4, "FI_PROTO_PSMX"),
    /** {@code FI_PROTO_UDP}: UDP datagrams. */
    UDP(5, "FI_PROTO_UDP"),
    /** {@code FI_PROTO_SOCK_TCP}: libfabric's tcp provider wire protocol (before xnet). */
    SOCK_TCP(6, "FI_PROTO_SOCK_TCP"),
    /** {@code FI_PROTO_MXM}. */
    MXM(7, "FI_PROTO_MXM"),
    /** {@code FI_PROTO_IWARP_RDM}. */
    IWARP_RDM(8, "FI_PROTO_IWARP_RDM"),
    /** {@code FI_PROTO_IB_RDM}. */
    IB_RDM(9, "FI_PROTO_IB_RDM"),
    /** {@code FI_PROTO_GNI}. */
    GNI(10, "FI_PROTO_GNI"),
    /** {@code FI_PROTO_RXM}: ofi_rxm's protocol over a MSG core. */
    RXM(11, "FI_PROTO_RXM"),
    /** {@code FI_PROTO_RXD}. */
    RXD(12, "FI_PROTO_RXD"),
    /** {@code FI_PROTO_MLX}. */
    MLX(13, "FI_PROTO_MLX"),
    /** {@code FI_PROTO_NETWORKDIRECT}. */
    NETWORKDIRECT(14, "FI_PROTO_NETWORKDIRECT"),
    /** {@code FI_PROTO_PSMX2}. */
    PSMX2(15, "FI_PROTO_PSMX2"),
    /** {@code FI_PROTO_SHM}: the shm provider. */
    SHM(16, "FI_PROTO_SHM"),
    /** {@code FI_PROTO_MRAIL}. */
    MRAIL(17, "FI_PROTO_MRAIL"),
    /** {@code FI_PROTO_RSTREAM}. */
    RSTREAM(18, "FI_PROTO_RSTREAM"),
    /** {@code FI_PROTO_RDMA_CM_IB_XRC}. */
    RDMA_CM_IB_XRC(19, "FI_PROTO_RDMA_CM_IB_XRC"),
    /** {@code FI_PROTO_EFA}. */
    EFA(20, "FI_PROTO_EFA"),
    /** {@code FI_PROTO_PSMX3}. */
    PSMX3(21, "FI_PROTO_PSMX3"),
    /** {@code FI_PROTO_RXM_TCP}: ofi_rxm's protocol over tcp. */
    RXM_TCP(22, "FI_PROTO_RXM_TCP"),
    /** {@code FI_PROTO_OPX}. */
    OPX(23, "FI_PROTO_OPX"),
    /** {@code FI_PROTO_CXI}. */
    CXI(24, "FI_PROTO_CXI"),
    /** {@code FI_PROTO_XNET}: libfabric's tcp (xnet) wire protocol. */
    XNET(25, "FI_PROTO_XNET");

    private final int value;
    private final String cName;

    Protocol(int value, String cName) {
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
    public static Protocol of(int v) {
        for (Protocol e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no Protocol with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
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
