package io.jfabric;

/** Access rights of a memory registration ({@code fi_mr_reg}'s access argument). */
public final class Access {
    /** {@code FI_SEND}: the region may be a send buffer. */
    public static final long SEND = Caps.SEND;
    /** {@code FI_RECV}: the region may be a receive buffer. */
    public static final long RECV = Caps.RECV;
    /** {@code FI_READ}: the region may be the local buffer of an RMA read. */
    public static final long READ = Caps.READ;
    /** {@code FI_WRITE}: the region may be the local buffer of an RMA write. */
    public static final long WRITE = Caps.WRITE;
    /** {@code FI_REMOTE_READ}: peers may read the region. */
    public static final long REMOTE_READ = Caps.REMOTE_READ;
    /** {@code FI_REMOTE_WRITE}: peers may write the region. */
    public static final long REMOTE_WRITE = Caps.REMOTE_WRITE;
    /** Every access bit above. */
    public static final long ALL = SEND | RECV | READ | WRITE | REMOTE_READ | REMOTE_WRITE;

    private static final FlagNames NAMES = new FlagNames(
            SEND, "FI_SEND", RECV, "FI_RECV", READ, "FI_READ", WRITE, "FI_WRITE",
            REMOTE_READ, "FI_REMOTE_READ", REMOTE_WRITE, "FI_REMOTE_WRITE");

    private Access() {
    }

    /**
     * Prints access bits as fi_tostr does.
     *
     * @param access Access bits
     * @return e.g. {@code FI_SEND | FI_RECV}
     */
    public static String toString(long access) {
        return NAMES.format(access);
    }
}
