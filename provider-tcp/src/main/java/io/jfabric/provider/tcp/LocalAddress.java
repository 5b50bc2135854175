package io.jfabric.provider.tcp;

import io.jfabric.InfoPrinter;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * One address tcp offers an info for. {@link #list} gives them in the order and with the fabric names libfabric
 * 1.17's {@code ofi_get_list_of_addr} gives them, so that the first info and the names fi_info prints are the same
 * in both: the up interfaces' addresses, fastest link first, IPv4 before IPv6, and loopback last as exactly
 * {@code 127.0.0.1/32} and {@code ::1/128}, for local communication only. A fabric is named by its network in
 * inet_ntop's text ({@code fd00::/64}, not Java's {@code fd00:0:0:0:0:0:0:0/64}), so hints copied from
 * fi_info's output match. Within one speed and family libfabric's insertion puts each address before those
 * found earlier, so there its order is getifaddrs' reversed; here it is by address, highest first, which is
 * the same on the hosts tested (docs/differences.md).
 */
record LocalAddress(String ifName, InetAddress address, int prefix, long speed, boolean loopback) {
    static final InetAddress LOOPBACK_V4 = literal(new byte[]{127, 0, 0, 1});
    static final InetAddress LOOPBACK_V6 = literal(new byte[]{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    /** Any port will do for {@link #routeTo}: the route depends on the address only. */
    private static final int ANY_PORT = 9;

    /** libfabric's ofi_compare_addr_entry: link speed (descending), family (IPv4 first), then address. */
    static final Comparator<LocalAddress> LIBFABRIC_ORDER = Comparator
            .comparingLong(LocalAddress::speed).reversed()
            .thenComparing(a -> !(a.address instanceof Inet4Address))
            .thenComparing((a, b) -> Arrays.compareUnsigned(b.address.getAddress(), a.address.getAddress()));

    /**
     * The local address the kernel sends to {@code dest} from, or null when no route reaches it: the address a UDP
     * socket connected to {@code dest} is bound to (a UDP connect only looks the route up and sends nothing), as
     * libfabric's getinfo finds the source of a destination ({@code fi_get_src_sockaddr}).
     */
    static InetAddress routeTo(InetAddress dest) {
        try (DatagramChannel ch = DatagramChannel.open(dest instanceof Inet4Address
                ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6)) {
            ch.connect(new InetSocketAddress(dest, ANY_PORT));
            InetAddress a = ((InetSocketAddress) ch.getLocalAddress()).getAddress();
            return a.isAnyLocalAddress() ? null : a;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The list libfabric's tcp would build on this host now. */
    static List<LocalAddress> list() throws SocketException {
        List<LocalAddress> out = new ArrayList<>();
        String loopbackName = "lo";
        boolean v6Loopback = false;
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp()) { // IFF_UP and IFF_RUNNING, as libfabric asks
                continue;
            }
            if (nif.isLoopback()) {
                loopbackName = nif.getName();
                for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                    v6Loopback |= LOOPBACK_V6.equals(ia.getAddress());
                }
                continue;
            }
            long speed = linkSpeed(nif.getName());
            for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                if (ia.getAddress() != null) {
                    out.add(new LocalAddress(nif.getName(), ia.getAddress(), ia.getNetworkPrefixLength(), speed,
                            false));
                }
            }
        }
        out.sort(LIBFABRIC_ORDER);
        out.add(new LocalAddress(loopbackName, LOOPBACK_V4, 32, 0, true));
        // libfabric lists ::1 even where IPv6 is off; an info nothing can bind to is left out here
        if (v6Loopback) {
            out.add(new LocalAddress(loopbackName, LOOPBACK_V6, 128, 0, true));
        }
        return out;
    }

    /** The fabric name: the network's address in inet_ntop's text and the prefix length. */
    String fabricName() {
        byte[] b = address.getAddress();
        for (int bit = prefix; bit < b.length * 8; bit++) {
            b[bit >> 3] &= (byte) ~(0x80 >>> (bit & 7));
        }
        String net = b.length == 16 ? InfoPrinter.inet6(b) : literal(b).getHostAddress();
        return net + "/" + prefix;
    }

    /**
     * The link speed in Mb/s as the kernel reports it (ethtool's, read from sysfs): an interface that reports
     * none (virtual devices, a link that is down) reads 0; one whose speed is unknown reports -1, which
     * libfabric takes as an unsigned 32-bit value and so sorts first.
     */
    static long linkSpeed(String ifName) {
        try {
            long s = Long.parseLong(Files.readString(Path.of("/sys/class/net", ifName, "speed")).trim());
            return s < 0 ? s & 0xFFFFFFFFL : s;
        } catch (IOException | NumberFormatException | SecurityException e) {
            return 0;
        }
    }

    private static InetAddress literal(byte[] b) {
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
