package io.jfabric.conformance.fault;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.conformance.FabricCase;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

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

    /**
     * The case's info for the source address {@code host}: the provider's own info for the device that has the
     * address when discovery offers one (verbs opens its domain on that device, and rxm over verbs refuses a
     * connection request that arrives on another device than its endpoint's), else the case's info with its
     * source address replaced (tcp serves any of the host's addresses from one info).
     */
    static FabricInfo infoAt(FabricCase c, String host) {
        byte[] src = sockaddr(c.info().srcAddr, host, 0);
        List<FabricInfo> found;
        try {
            // the case's modes too: verbs;ofi_rxm needs FI_LOCAL_MR, which hints that accept no mode refuse
            found = Fabrics.getInfo(Hints.create().provider(c.provider()).epType(c.epType()).mode(c.info().mode)
                    .mrMode(c.info().domainAttr.mrMode).srcAddr(src).build());
        } catch (FabricException e) {
            if (e.errno() != Errno.ENODATA) {
                throw e;
            }
            found = List.of();
        }
        FabricInfo info = found.isEmpty() ? c.freshInfo() : new FabricCase(c.id(), found.get(0)).freshInfo();
        info.srcAddr = src;
        return info;
    }
}
