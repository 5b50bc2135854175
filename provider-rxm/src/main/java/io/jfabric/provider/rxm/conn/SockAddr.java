package io.jfabric.provider.rxm.conn;

import java.util.HexFormat;

/**
 * Helpers over the raw {@code struct sockaddr_in / sockaddr_in6} bytes that jfabric uses as addresses of
 * FI_SOCKADDR providers: family in host order, then the port and the address in network order.
 */
public final class SockAddr {
    public static final int IN_SIZE = 16;
    public static final int IN6_SIZE = 28;

    private SockAddr() {
    }

    public static boolean isIn6(byte[] a) {
        return a.length >= IN6_SIZE;
    }

    /** The port, host order. */
    public static int port(byte[] a) {
        return ((a[2] & 0xFF) << 8) | (a[3] & 0xFF);
    }

    /** A copy with {@code port} (host order) set, as ofi_addr_set_port does. */
    public static byte[] withPort(byte[] a, int port) {
        byte[] c = a.clone();
        c[2] = (byte) (port >>> 8);
        c[3] = (byte) port;
        return c;
    }

    /**
     * libfabric's {@code ofi_addr_cmp}: compares the IP address bytes, then the port bytes, both in network
     * order and unsigned; negative when {@code a} sorts first.
     */
    public static int compare(byte[] a, byte[] b) {
        int from = isIn6(a) ? 8 : 4;
        int len = isIn6(a) ? 16 : 4;
        int c = java.util.Arrays.compareUnsigned(a, from, from + len, b, from, from + len);
        if (c != 0) {
            return c;
        }
        return java.util.Arrays.compareUnsigned(a, 2, 4, b, 2, 4);
    }

    /** A map key naming the endpoint: family, port and address (padding ignored). */
    public static String key(byte[] a) {
        int len = isIn6(a) ? 24 : 8;
        return HexFormat.of().formatHex(a, 0, Math.min(len, a.length));
    }

    /** "a.b.c.d:port" or "[v6]:port", for messages. */
    public static String toString(byte[] a) {
        if (a == null) {
            return "(none)";
        }
        try {
            if (isIn6(a)) {
                byte[] ip = java.util.Arrays.copyOfRange(a, 8, 24);
                return "[" + java.net.InetAddress.getByAddress(ip).getHostAddress() + "]:" + port(a);
            }
            if (a.length >= 8) {
                byte[] ip = java.util.Arrays.copyOfRange(a, 4, 8);
                return java.net.InetAddress.getByAddress(ip).getHostAddress() + ":" + port(a);
            }
        } catch (java.net.UnknownHostException e) {
            // fall through to hex
        }
        return HexFormat.of().formatHex(a);
    }
}
