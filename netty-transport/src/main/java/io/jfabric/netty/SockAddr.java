package io.jfabric.netty;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The host and port in a FI_SOCKADDR_IN/IN6 endpoint name (Linux sockaddr_in and sockaddr_in6: family in host
 * order, port and address in network order), as a connected provider's fi_getname and fi_getpeer give it: what a
 * client dials and what an error message names.
 */
final class SockAddr {
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;

    private SockAddr() {
    }

    /** The numeric host, or null when {@code name} is no sockaddr_in/in6. */
    static String host(byte[] name) {
        byte[] ip = switch (family(name)) {
            case AF_INET -> Arrays.copyOfRange(name, 4, 8);
            case AF_INET6 -> Arrays.copyOfRange(name, 8, 24);
            default -> null;
        };
        if (ip == null) {
            return null;
        }
        try {
            return InetAddress.getByAddress(ip).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address of " + ip.length + " bytes", e);
        }
    }

    /** The port, or -1 when {@code name} is no sockaddr_in/in6. */
    static int port(byte[] name) {
        return family(name) == 0 ? -1 : (name[2] & 0xff) << 8 | name[3] & 0xff;
    }

    /** {@code host:port} ({@code [host]:port} for IPv6), or the name in hex when it is no socket address. */
    static String text(byte[] name) {
        String host = host(name);
        if (host == null) {
            return name == null ? "?" : HexFormat.of().formatHex(name);
        }
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port(name);
    }

    private static int family(byte[] name) {
        if (name == null || name.length < 8 || name[1] != 0) {
            return 0;
        }
        if (name[0] == AF_INET && name.length >= 16) {
            return AF_INET;
        }
        return name[0] == AF_INET6 && name.length >= 24 ? AF_INET6 : 0;
    }
}
