package io.jfabric;

/** Address formats ({@code fi_info.addr_format}). */
public enum AddressFormat {
    /** {@code FI_FORMAT_UNSPEC}: no preference (hints) or not set. */
    UNSPEC(0, "FI_FORMAT_UNSPEC"),
    /** {@code FI_SOCKADDR}: any struct sockaddr. */
    SOCKADDR(1, "FI_SOCKADDR"),
    /** {@code FI_SOCKADDR_IN}: struct sockaddr_in (IPv4). */
    SOCKADDR_IN(2, "FI_SOCKADDR_IN"),
    /** {@code FI_SOCKADDR_IN6}: struct sockaddr_in6 (IPv6). */
    SOCKADDR_IN6(3, "FI_SOCKADDR_IN6"),
    /** {@code FI_SOCKADDR_IB}: struct sockaddr_ib (InfiniBand). */
    SOCKADDR_IB(4, "FI_SOCKADDR_IB"),
    /** {@code FI_ADDR_PSMX}. */
    ADDR_PSMX(5, "FI_ADDR_PSMX"),
    /** {@code FI_ADDR_GNI}. */
    ADDR_GNI(6, "FI_ADDR_GNI"),
    /** {@code FI_ADDR_BGQ}. */
    ADDR_BGQ(7, "FI_ADDR_BGQ"),
    /** {@code FI_ADDR_MLX}. */
    ADDR_MLX(8, "FI_ADDR_MLX"),
    /** {@code FI_ADDR_STR}: a NUL-terminated address string, e.g. "fi_shm://1234". */
    ADDR_STR(9, "FI_ADDR_STR"),
    /** {@code FI_ADDR_PSMX2}. */
    ADDR_PSMX2(10, "FI_ADDR_PSMX2"),
    /** {@code FI_ADDR_IB_UD}. */
    ADDR_IB_UD(11, "FI_ADDR_IB_UD"),
    /** {@code FI_ADDR_EFA}. */
    ADDR_EFA(12, "FI_ADDR_EFA"),
    /** {@code FI_ADDR_PSMX3}. */
    ADDR_PSMX3(13, "FI_ADDR_PSMX3"),
    /** {@code FI_ADDR_OPX}. */
    ADDR_OPX(14, "FI_ADDR_OPX"),
    /** {@code FI_ADDR_CXI}. */
    ADDR_CXI(15, "FI_ADDR_CXI");

    private final int value;
    private final String cName;

    AddressFormat(int value, String cName) {
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
    public static AddressFormat of(int v) {
        for (AddressFormat e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no AddressFormat with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
    public static AddressFormat parse(String text) {
        String t = text.trim().toUpperCase();
        for (AddressFormat e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown AddressFormat '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(AddressFormat::cName).toList());
    }
}
