package io.jfabric;

/** Threading models ({@code enum fi_threading}). Matching ranks them SAFE < FID < ENDPOINT < COMPLETION < DOMAIN, not by value. */
public enum Threading {
    UNSPEC(0, "FI_THREAD_UNSPEC"),
    SAFE(1, "FI_THREAD_SAFE"),
    FID(2, "FI_THREAD_FID"),
    DOMAIN(3, "FI_THREAD_DOMAIN"),
    COMPLETION(4, "FI_THREAD_COMPLETION"),
    ENDPOINT(5, "FI_THREAD_ENDPOINT");

    private final int value;
    private final String cName;

    Threading(int value, String cName) {
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
    public static Threading of(int v) {
        for (Threading e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no Threading with value " + v);
    }

    /** Parses "FI_X", "X" or "x". */
    public static Threading parse(String text) {
        String t = text.trim().toUpperCase();
        for (Threading e : values()) {
            if (e.cName.equals(t) || e.name().equals(t) || e.cName.equals("FI_THREAD_" + t)) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "unknown Threading '" + text + "'; known: "
                + java.util.Arrays.stream(values()).map(Threading::cName).toList());
    }
}
