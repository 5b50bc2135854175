package io.jfabric.util;

import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Linux {@code struct sockaddr_in} (16 bytes) and {@code struct sockaddr_in6} (28 bytes) as byte
 * arrays, the representation FabricInfo and AV addresses use for FI_SOCKADDR_IN/IN6: sa_family in
 * host order (little-endian on every Linux target jfabric supports), port and address in network
 * order. {@link #validate} checks them, {@link #straddr} prints them ({@code fi_sockaddr_in://a.b.c.d:port},
 * {@code fi_sockaddr_in6://[addr]:port}, as libfabric's {@code ofi_straddr}).
 */
public final class Sockaddr {
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int IN_LEN = 16;
    public static final int IN6_LEN = 28;

    private Sockaddr() {
    }

    public static int family(byte[] a) {
        return a == null || a.length < 2 ? -1 : (a[0] & 0xff) | (a[1] & 0xff) << 8;
    }

    public static int port(byte[] a) {
        return (a[2] & 0xff) << 8 | (a[3] & 0xff);
    }

    /** A copy of {@code a} with {@code port} (host order) set, as libfabric's {@code ofi_addr_set_port}. */
    public static byte[] withPort(byte[] a, int port) {
        byte[] c = a.clone();
        c[2] = (byte) (port >>> 8);
        c[3] = (byte) port;
        return c;
    }

    /**
     * libfabric's {@code ofi_addr_cmp}: the IP address bytes, then the port bytes, both in network order
     * and unsigned; negative when {@code a} sorts first. rxm settles simultaneous connects with it.
     */
    public static int compare(byte[] a, byte[] b) {
        int from = family(a) == AF_INET6 ? 8 : 4;
        int len = family(a) == AF_INET6 ? 16 : 4;
        int c = java.util.Arrays.compareUnsigned(a, from, from + len, b, from, from + len);
        if (c != 0) {
            return c;
        }
        return java.util.Arrays.compareUnsigned(a, 2, 4, b, 2, 4);
    }

    /** A map key naming the endpoint: family, port and address, ignoring the padding and the v6 scope id. */
    public static String key(byte[] a) {
        int len = family(a) == AF_INET6 ? 24 : 8;
        return java.util.HexFormat.of().formatHex(a, 0, Math.min(len, a.length));
    }

    /** Null when {@code a} is a usable sockaddr_in/in6, else the reason. */
    public static String validate(byte[] a) {
        if (a == null) {
            return "address is null";
        }
        int fam = family(a);
        if (fam == AF_INET && a.length == IN_LEN || fam == AF_INET6 && a.length == IN6_LEN) {
            if (port(a) == 0) {
                return "port is 0";
            }
            return null;
        }
        if (fam == AF_INET || fam == AF_INET6) {
            return "a sockaddr_in" + (fam == AF_INET6 ? "6" : "") + " is " + (fam == AF_INET ? IN_LEN : IN6_LEN)
                    + " bytes, this one is " + a.length;
        }
        return "not a sockaddr_in/in6 (family " + fam + ", " + a.length + " bytes)";
    }

    /** The bytes of {@code addr:port}. */
    public static byte[] of(InetAddress addr, int port) {
        if (port < 0 || port > 0xffff) {
            throw new FabricException(Errno.EINVAL, "port " + port + " is not 0..65535");
        }
        byte[] ip = addr.getAddress();
        byte[] a;
        if (addr instanceof Inet4Address) {
            a = new byte[IN_LEN];
            a[0] = AF_INET;
            System.arraycopy(ip, 0, a, 4, 4);
        } else {
            a = new byte[IN6_LEN];
            a[0] = AF_INET6;
            System.arraycopy(ip, 0, a, 8, 16);
            int scope = ((Inet6Address) addr).getScopeId();
            a[24] = (byte) scope;
            a[25] = (byte) (scope >>> 8);
            a[26] = (byte) (scope >>> 16);
            a[27] = (byte) (scope >>> 24);
        }
        a[2] = (byte) (port >>> 8);
        a[3] = (byte) port;
        return a;
    }

    public static byte[] of(InetSocketAddress sa) {
        if (sa.isUnresolved()) {
            throw new FabricException(Errno.EADDRNOTAVAIL, "address " + sa + " is unresolved");
        }
        return of(sa.getAddress(), sa.getPort());
    }

    /** FI_SOCKADDR_IN or FI_SOCKADDR_IN6: the address format that carries {@code ip}. */
    public static io.jfabric.AddressFormat formatOf(InetAddress ip) {
        return ip instanceof Inet4Address ? io.jfabric.AddressFormat.SOCKADDR_IN : io.jfabric.AddressFormat.SOCKADDR_IN6;
    }

    /** {@link #straddr(byte[])} of a resolved socket address, for messages. */
    public static String straddr(InetSocketAddress sa) {
        return sa.isUnresolved() ? String.valueOf(sa) : straddr(of(sa));
    }

    /** The socket address in {@code a}; throws FabricException(EINVAL) with the reason when invalid. */
    public static InetSocketAddress toInet(byte[] a) {
        String why = a == null ? "address is null" : validateShape(a);
        if (why != null) {
            throw new FabricException(Errno.EINVAL, "bad sockaddr: " + why);
        }
        try {
            if (family(a) == AF_INET) {
                return new InetSocketAddress(InetAddress.getByAddress(java.util.Arrays.copyOfRange(a, 4, 8)), port(a));
            }
            byte[] ip = java.util.Arrays.copyOfRange(a, 8, 24);
            int scope = (a[24] & 0xff) | (a[25] & 0xff) << 8 | (a[26] & 0xff) << 16 | (a[27] & 0xff) << 24;
            InetAddress ia = scope != 0 ? Inet6Address.getByAddress(null, ip, scope) : InetAddress.getByAddress(ip);
            return new InetSocketAddress(ia, port(a));
        } catch (UnknownHostException e) {
            throw new FabricException(Errno.EINVAL, "bad sockaddr bytes", e);
        }
    }

    /**
     * Null when {@code a} has the family and size of a sockaddr_in/in6, else the reason. Unlike {@link #validate}
     * it takes port 0, as a source address to bind may have it.
     */
    public static String validateShape(byte[] a) {
        if (a == null) {
            return "address is null";
        }
        int fam = family(a);
        if (fam == AF_INET && a.length == IN_LEN || fam == AF_INET6 && a.length == IN6_LEN) {
            return null;
        }
        return "not a sockaddr_in/in6 (family " + fam + ", " + a.length + " bytes)";
    }

    /** {@code fi_sockaddr_in://127.0.0.1:4000} / {@code fi_sockaddr_in6://[::1]:4000}; never throws. */
    public static String straddr(byte[] a) {
        if (a == null || validateShape(a) != null) {
            return "fi_addr_unknown://" + (a == null ? "null" : hex(a));
        }
        StringBuilder sb = new StringBuilder();
        if (family(a) == AF_INET) {
            sb.append("fi_sockaddr_in://").append(a[4] & 0xff).append('.').append(a[5] & 0xff).append('.')
                    .append(a[6] & 0xff).append('.').append(a[7] & 0xff);
        } else {
            String host;
            try {
                host = InetAddress.getByAddress(java.util.Arrays.copyOfRange(a, 8, 24)).getHostAddress();
            } catch (UnknownHostException e) {
                host = "?";
            }
            sb.append("fi_sockaddr_in6://[").append(compress6(host)).append(']');
        }
        return sb.append(':').append(port(a)).toString();
    }

    /** Java prints "0:0:0:0:0:0:0:1"; inet_ntop (and libfabric) prints "::1". */
    static String compress6(String full) {
        String[] parts = full.split("%")[0].split(":");
        int bestStart = -1, bestLen = 0;
        for (int i = 0; i < parts.length; ) {
            if (parts[i].equals("0")) {
                int j = i;
                while (j < parts.length && parts[j].equals("0")) {
                    j++;
                }
                if (j - i > bestLen && j - i >= 2) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestStart < 0) {
            return String.join(":", parts);
        }
        String left = String.join(":", java.util.Arrays.copyOfRange(parts, 0, bestStart));
        String right = String.join(":", java.util.Arrays.copyOfRange(parts, bestStart + bestLen, parts.length));
        return left + "::" + right;
    }

    static String hex(byte[] a) {
        StringBuilder sb = new StringBuilder();
        for (byte b : a) {
            sb.append(String.format("%02x", b & 0xff));
        }
        return sb.toString();
    }
}
