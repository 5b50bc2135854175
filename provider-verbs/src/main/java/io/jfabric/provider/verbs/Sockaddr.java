package io.jfabric.provider.verbs;

import io.jfabric.AddressFormat;
import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * jfabric addresses for FI_SOCKADDR_IN/IN6 are the C {@code struct sockaddr_in} (16 bytes) or
 * {@code sockaddr_in6} (28 bytes) bytes, which rdma_cm takes as they are.
 */
final class Sockaddr {
    static final int IN_SIZE = 16;
    static final int IN6_SIZE = 28;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;

    private Sockaddr() {
    }

    static byte[] of(InetAddress addr, int port) {
        byte[] ip = addr.getAddress();
        byte[] sa = new byte[ip.length == 4 ? IN_SIZE : IN6_SIZE];
        int family = ip.length == 4 ? AF_INET : AF_INET6;
        sa[0] = (byte) family; // sa_family is host order (little endian here)
        sa[1] = (byte) (family >> 8);
        sa[2] = (byte) (port >> 8); // port is network order
        sa[3] = (byte) port;
        if (ip.length == 4) {
            System.arraycopy(ip, 0, sa, 4, 4);
        } else {
            System.arraycopy(ip, 0, sa, 8, 16);
            if (addr instanceof Inet6Address a6 && a6.getScopeId() != 0) {
                int scope = a6.getScopeId();
                sa[24] = (byte) scope;
                sa[25] = (byte) (scope >> 8);
                sa[26] = (byte) (scope >> 16);
                sa[27] = (byte) (scope >> 24);
            }
        }
        return sa;
    }

    static int family(byte[] sa) {
        return (sa[0] & 0xff) | (sa[1] & 0xff) << 8;
    }

    static void check(byte[] sa, String what) {
        if (sa == null || !(sa.length >= IN_SIZE && family(sa) == AF_INET || sa.length >= IN6_SIZE && family(sa) == AF_INET6)) {
            throw new FabricException(Errno.EINVAL, what + " is not a sockaddr_in or sockaddr_in6 (FI_SOCKADDR_IN/IN6): "
                    + (sa == null ? "null" : Arrays.toString(sa)));
        }
    }

    static AddressFormat format(byte[] sa) {
        return family(sa) == AF_INET ? AddressFormat.SOCKADDR_IN : AddressFormat.SOCKADDR_IN6;
    }

    static int port(byte[] sa) {
        return (sa[2] & 0xff) << 8 | (sa[3] & 0xff);
    }

    static byte[] withPort(byte[] sa, int port) {
        byte[] c = sa.clone();
        c[2] = (byte) (port >> 8);
        c[3] = (byte) port;
        return c;
    }

    static InetAddress inet(byte[] sa) {
        try {
            return family(sa) == AF_INET ? InetAddress.getByAddress(Arrays.copyOfRange(sa, 4, 8))
                    : InetAddress.getByAddress(Arrays.copyOfRange(sa, 8, 24));
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** A native copy for rdma_cm, padded to sockaddr_storage size. */
    static MemorySegment toNative(byte[] sa, Arena arena) {
        MemorySegment s = arena.allocate(128, 8);
        MemorySegment.copy(sa, 0, s, ValueLayout.JAVA_BYTE, 0, sa.length);
        return s;
    }

    /** Reads a sockaddr rdma_cm filled in (128 bytes of sockaddr_storage); null when its family is unset. */
    static byte[] fromNative(MemorySegment storage) {
        int family = Short.toUnsignedInt(storage.get(ValueLayout.JAVA_SHORT, 0));
        if (family == AF_INET) {
            return storage.asSlice(0, IN_SIZE).toArray(ValueLayout.JAVA_BYTE);
        }
        if (family == AF_INET6) {
            return storage.asSlice(0, IN6_SIZE).toArray(ValueLayout.JAVA_BYTE);
        }
        return null;
    }

    static String toString(byte[] sa) {
        if (sa == null) {
            return "-";
        }
        InetAddress a = inet(sa);
        return (a instanceof Inet4Address ? a.getHostAddress() : "[" + a.getHostAddress() + "]") + ":" + port(sa);
    }
}
