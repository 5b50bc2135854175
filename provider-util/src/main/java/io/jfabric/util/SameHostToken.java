package io.jfabric.util;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;

/**
 * The proof two processes exchange before one copies data straight out of the other with process_vm_readv
 * (tcp's and ofi_rxm's same-host paths): this process announces its pid and the address of a random 8-byte token
 * in its memory; a peer that reads the token back through {@link Cma} and finds the value is on this host, of this
 * user, in a pid namespace where that pid is this process, and allowed to read it. A pid alone proves none of that
 * (another host, container or namespace can hold the same number), and ptrace policy (Yama, dumpability) can refuse
 * the read even between processes of one user.
 */
public final class SameHostToken {
    private static final MemorySegment TOKEN = Arena.global().allocate(8, 8);
    private static final long VALUE = new SecureRandom().nextLong() | 1;
    private static final long PID = ProcessHandle.current().pid();

    static {
        TOKEN.set(ValueLayout.JAVA_LONG, 0, VALUE);
    }

    private SameHostToken() {
    }

    public static long pid() {
        return PID;
    }

    public static long address() {
        return TOKEN.address();
    }

    public static long value() {
        return VALUE;
    }

    /**
     * Reads a peer's announced token. {@code cma} is the caller's (not thread-safe).
     *
     * @return the peer's pid when its token reads back with the announced value, else 0
     */
    public static int verify(Cma cma, long pid, long address, long value) {
        if (pid <= 0 || pid > Integer.MAX_VALUE || !Cma.linked()) {
            return 0;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment expected = a.allocate(8, 8);
            expected.set(ValueLayout.JAVA_LONG, 0, value);
            return cma.probe((int) pid, address, expected) == 0 ? (int) pid : 0;
        }
    }
}
