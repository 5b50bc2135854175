package io.jfabric;

/** Access rights of a memory registration ({@code fi_mr_reg}'s access argument). */
public final class Access {
    public static final long SEND = Caps.SEND;
    public static final long RECV = Caps.RECV;
    public static final long READ = Caps.READ;
    public static final long WRITE = Caps.WRITE;
    public static final long REMOTE_READ = Caps.REMOTE_READ;
    public static final long REMOTE_WRITE = Caps.REMOTE_WRITE;
    public static final long ALL = SEND | RECV | READ | WRITE | REMOTE_READ | REMOTE_WRITE;

    private static final FlagNames NAMES = new FlagNames(
            SEND, "FI_SEND", RECV, "FI_RECV", READ, "FI_READ", WRITE, "FI_WRITE",
            REMOTE_READ, "FI_REMOTE_READ", REMOTE_WRITE, "FI_REMOTE_WRITE");

    private Access() {
    }

    public static String toString(long access) {
        return NAMES.format(access);
    }
}
