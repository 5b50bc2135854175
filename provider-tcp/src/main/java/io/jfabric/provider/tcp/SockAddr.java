package io.jfabric.provider.tcp;

import io.jfabric.AddressFormat;
import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Conversion between Linux {@code struct sockaddr_in} (16 bytes) / {@code sockaddr_in6} (28 bytes), the
 * FI_SOCKADDR_IN / FI_SOCKADDR_IN6 address bytes libfabric's tcp provider uses, and {@link InetSocketAddress}.
 * {@code sin_family} is in host order, the port in network order, as the kernel lays them out.
 */
public final class SockAddr {
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int IN_LEN = 16;
    public static final int IN6_LEN = 28;

    private SockAddr() {
    }

    /** The sockaddr bytes of {@code a}. */
    public static byte[] encode(InetSocketAddress a) {
        InetAddress ip = a.getAddress();
        if (ip instanceof Inet4Address) {
            ByteBuffer b = ByteBuffer.allocate(IN_LEN);
            b.order(ByteOrder.nativeOrder()).putShort((short) AF_INET);
            b.order(ByteOrder.BIG_ENDIAN).putShort((short) a.getPort());
            b.put(ip.getAddress());
            return b.array();
        }
        ByteBuffer b = ByteBuffer.allocate(IN6_LEN);
        b.order(ByteOrder.nativeOrder()).putShort((short) AF_INET6);
        b.order(ByteOrder.BIG_ENDIAN).putShort((short) a.getPort());
        b.putInt(0); // flowinfo
        b.put(ip.getAddress());
        b.order(ByteOrder.nativeOrder()).putInt(((Inet6Address) ip).getScopeId());
        return b.array();
    }

    /** Decodes sockaddr bytes; throws FabricException(EINVAL) for anything that is not AF_INET/AF_INET6. */
    public static InetSocketAddress decode(byte[] addr) {
        if (addr == null || addr.length < IN_LEN) {
            throw new FabricException(Errno.EINVAL, "address must be a sockaddr_in (16 B) or sockaddr_in6 (28 B), got "
                    + (addr == null ? "null" : addr.length + " B"));
        }
        ByteBuffer b = ByteBuffer.wrap(addr).order(ByteOrder.nativeOrder());
        int family = Short.toUnsignedInt(b.getShort(0));
        int port = Short.toUnsignedInt(b.order(ByteOrder.BIG_ENDIAN).getShort(2));
        try {
            if (family == AF_INET) {
                byte[] ip = new byte[4];
                b.get(4, ip);
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            if (family == AF_INET6 && addr.length >= IN6_LEN) {
                byte[] ip = new byte[16];
                b.get(8, ip);
                int scope = b.order(ByteOrder.nativeOrder()).getInt(24);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, scope), port);
            }
        } catch (UnknownHostException e) {
            throw new FabricException(Errno.EINVAL, "bad address bytes: " + e.getMessage());
        }
        throw new FabricException(Errno.EINVAL, "unsupported sockaddr family " + family
                + " (tcp takes FI_SOCKADDR_IN or FI_SOCKADDR_IN6)");
    }

    /** FI_SOCKADDR_IN or FI_SOCKADDR_IN6 for an address. */
    public static AddressFormat formatOf(InetAddress ip) {
        return ip instanceof Inet4Address ? AddressFormat.SOCKADDR_IN : AddressFormat.SOCKADDR_IN6;
    }

    /** fi_av_straddr-style text. */
    public static String toString(InetSocketAddress a) {
        return a.getAddress() instanceof Inet4Address
                ? "fi_sockaddr_in://" + a.getAddress().getHostAddress() + ":" + a.getPort()
                : "fi_sockaddr_in6://[" + a.getAddress().getHostAddress() + "]:" + a.getPort();
    }
}
