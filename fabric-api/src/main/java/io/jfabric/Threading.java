package io.jfabric;

/**
 * Threading models ({@code enum fi_threading}). Hint matching ranks them by what they allow, not by
 * value: SAFE, then FID, ENDPOINT, COMPLETION, DOMAIN, from the most to the least permissive.
 */
public enum Threading {
    /** {@code FI_THREAD_UNSPEC}: no preference (hints) or not set. */
    UNSPEC(0, "FI_THREAD_UNSPEC"),
    /** {@code FI_THREAD_SAFE}: the provider serialises every call; any thread may call anything. */
    SAFE(1, "FI_THREAD_SAFE"),
    /** {@code FI_THREAD_FID}: each object may be used by one thread at a time. */
    FID(2, "FI_THREAD_FID"),
    /** {@code FI_THREAD_DOMAIN}: all objects of a domain are used by one thread at a time. */
    DOMAIN(3, "FI_THREAD_DOMAIN"),
    /** {@code FI_THREAD_COMPLETION}: objects bound to one completion queue are used by one thread at a time. */
    COMPLETION(4, "FI_THREAD_COMPLETION"),
    /** {@code FI_THREAD_ENDPOINT}: each endpoint (with its data-path calls) is used by one thread at a time. */
    ENDPOINT(5, "FI_THREAD_ENDPOINT");

    private final int value;
    private final String cName;

    Threading(int value, String cName) {
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
    public static Threading of(int v) {
        for (Threading e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new FabricException(Errno.EINVAL, "no Threading with value " + v);
    }

    /**
     * Parses a name the way fi_info's options take it.
     *
     * @param text "FI_X", "X" or "x"
     * @return the constant
     * @throws FabricException EINVAL if the name is unknown
     */
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
