package io.jfabric;

/** Address formats ({@code fi_info.addr_format}). */
public enum AddressFormat {
    UNSPEC(0, "FI_FORMAT_UNSPEC"),
    SOCKADDR(1, "FI_SOCKADDR"),
    SOCKADDR_IN(2, "FI_SOCKADDR_IN"),
    SOCKADDR_IN6(3, "FI_SOCKADDR_IN6"),
    SOCKADDR_IB(4, "FI_SOCKADDR_IB"),
    ADDR_PSMX(5, "FI_ADDR_PSMX"),
    ADDR_GNI(6, "FI_ADDR_GNI"),
    ADDR_BGQ(7, "FI_ADDR_BGQ"),
    ADDR_MLX(8, "FI_ADDR_MLX"),
    ADDR_STR(9, "FI_ADDR_STR"),
    ADDR_PSMX2(10, "FI_ADDR_PSMX2"),
    ADDR_IB_UD(11, "FI_ADDR_IB_UD"),
    ADDR_EFA(12, "FI_ADDR_EFA"),
    ADDR_PSMX3(13, "FI_ADDR_PSMX3"),
    ADDR_OPX(14, "FI_ADDR_OPX"),
    ADDR_CXI(15, "FI_ADDR_CXI");

    private final int value;
    private final String cName;

    AddressFormat(int value, String cName) {
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
    public static AddressFormat of(int v) {
        for (AddressFormat e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no AddressFormat with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
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
