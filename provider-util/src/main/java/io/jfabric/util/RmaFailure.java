package io.jfabric.util;

import io.jfabric.Errno;

import java.nio.charset.StandardCharsets;

/**
 * The err_data text of a failed RMA, so the initiator learns what went wrong and where. Error path only:
 * it allocates, which a failed operation may.
 */
public final class RmaFailure {
    private RmaFailure() {
    }

    /** The target checked the access and refused it with {@code errno} (a wire that carries the status). */
    public static byte[] refused(boolean read, int errno, long len, long addr, long key) {
        return text("the target refused the RMA " + (read ? "read" : "write") + " of " + len + " bytes at address 0x"
                + Long.toHexString(addr) + " through key 0x" + Long.toHexString(key) + ": " + Errno.name(errno)
                + " (" + Errno.strerror(errno) + ")");
    }

    /**
     * The connection went down while the RMA was in flight. On libfabric's tcp wire, which has no status for an
     * RMA, that is how a target refuses one (bad key, range or access), so the user gets the likely lead.
     */
    public static byte[] dropped(boolean read, long len, long addr, long key) {
        return text("the connection was dropped by the target during an RMA " + (read ? "read" : "write") + " of "
                + len + " bytes at address 0x" + Long.toHexString(addr) + " through key 0x" + Long.toHexString(key)
                + " (a wire without RMA status, such as libfabric's tcp, ends the connection when the target"
                + " refuses the key, range or access; the target's log says which)");
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
