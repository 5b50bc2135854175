package io.jfabric.internal;

import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The order of fi_getinfo's answer beyond the providers' own: libfabric's {@code ofi_reorder_info}
 * (native "net" RDM infos ahead of "net;ofi_rxm" ones), and routable source addresses ahead of
 * link-local ones.
 */
final class InfoOrder {
    private InfoOrder() {
    }

    static void preferNetRdm(List<FabricInfo> infos) {
        List<FabricInfo> net = new ArrayList<>();
        for (FabricInfo i : infos) {
            if (isRdm(i, "net")) {
                net.add(i);
            }
        }
        if (net.isEmpty()) {
            return;
        }
        infos.removeAll(net);
        int at = infos.size();
        for (int k = 0; k < infos.size(); k++) {
            if (isRdm(infos.get(k), "net;ofi_rxm")) {
                at = k;
                break;
            }
        }
        infos.addAll(at, net);
    }

    /**
     * Within each provider's run of infos, moves those whose source address is link-local (IPv6
     * fe80::/10, IPv4 169.254/16) behind the routable ones, keeping the order otherwise, so that the
     * first info is one a peer on another network can reach; libfabric's own list starts with one too.
     * Java's interface enumeration often yields the link-local address of an interface first. Left as
     * it is when the application named an address (node, or the hints' src_addr/dest_addr): then the
     * provider's answer is about that address. The bridge's infos keep libfabric's own order, which
     * fi_info prints.
     */
    static void preferRoutable(List<FabricInfo> infos, String node, FabricInfo hints) {
        if (node != null || (hints != null && (hints.srcAddr != null || hints.destAddr != null))) {
            return;
        }
        List<FabricInfo> ordered = new ArrayList<>(infos.size());
        List<FabricInfo> linkLocal = new ArrayList<>();
        int start = 0;
        while (start < infos.size()) {
            String name = infos.get(start).providerName();
            int end = start;
            while (end < infos.size() && Objects.equals(name, infos.get(end).providerName())) {
                FabricInfo i = infos.get(end++);
                if (isLinkLocal(i.srcAddr) && !isBridge(name)) {
                    linkLocal.add(i);
                } else {
                    ordered.add(i);
                }
            }
            ordered.addAll(linkLocal);
            linkLocal.clear();
            start = end;
        }
        infos.clear();
        infos.addAll(ordered);
    }

    /** Whether a sockaddr_in or sockaddr_in6 (family in host order, as jfabric stores it) is link-local. */
    static boolean isLinkLocal(byte[] sockaddr) {
        if (sockaddr == null || sockaddr.length < 2) {
            return false;
        }
        int family = (sockaddr[0] & 0xFF) | (sockaddr[1] & 0xFF) << 8;
        if (family == 2 && sockaddr.length >= 8) {
            return (sockaddr[4] & 0xFF) == 169 && (sockaddr[5] & 0xFF) == 254;
        }
        if (family == 10 && sockaddr.length >= 24) {
            return (sockaddr[8] & 0xFF) == 0xfe && (sockaddr[9] & 0xC0) == 0x80;
        }
        return false;
    }

    private static boolean isBridge(String infoName) {
        return infoName != null && ProviderNames.BRIDGE.equals(ProviderNames.owner(infoName));
    }

    private static boolean isRdm(FabricInfo i, String name) {
        return name.equalsIgnoreCase(i.providerName()) && i.epAttr != null && i.epAttr.type == EndpointType.RDM;
    }
}
