package io.jfabric.conformance.fault;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** IPv4 source addresses in the C {@code sockaddr_in} form infos carry (family, port big-endian, address). */
final class Ipv4 {
    private Ipv4() {
    }

    /** {@code template} (a case's sockaddr_in) with its address replaced by {@code host} and its port by {@code port}. */
    static byte[] sockaddr(byte[] template, String host, int port) {
        if (template == null || template.length < 8 || !(template[0] == 2 || template[1] == 2)) {
            throw new IllegalArgumentException("the case's source address is not a sockaddr_in");
        }
        byte[] ip;
        try {
            ip = InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(host, e);
        }
        byte[] sa = template.clone();
        sa[2] = (byte) (port >>> 8);
        sa[3] = (byte) port;
        System.arraycopy(ip, 0, sa, 4, 4);
        return sa;
    }
}
