package io.jfabric.conformance;

import io.jfabric.AddressFormat;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The parameter source of the suite: every (provider, endpoint type) that discovery returns, asked once with
 * null hints and once per endpoint type. Providers list one info per interface; the suite keeps one per
 * (provider, endpoint type), preferring a loopback address so that test traffic stays on this host.
 */
public final class FabricCases {
    private static volatile List<FabricCase> cached;

    private FabricCases() {
    }

    /** For {@code @MethodSource}: every case, possibly none. */
    public static Stream<FabricCase> all() {
        return cases().stream();
    }

    public static List<FabricCase> cases() {
        List<FabricCase> c = cached;
        if (c == null) {
            c = discover();
            cached = c;
        }
        return c;
    }

    /** The case with this id, for a peer process; throws if discovery there does not offer it. */
    public static FabricCase byId(String id) {
        return cases().stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow(
                () -> new IllegalStateException("no case " + id + " in this process; found " + cases()));
    }

    private static List<FabricCase> discover() {
        List<FabricInfo> infos = new ArrayList<>(getInfo(null));
        for (EndpointType type : new EndpointType[] {EndpointType.MSG, EndpointType.RDM, EndpointType.DGRAM}) {
            infos.addAll(getInfo(Hints.create().epType(type).build()));
        }
        Map<String, FabricInfo> best = new LinkedHashMap<>();
        for (FabricInfo info : infos) {
            if (info.epAttr == null || info.fabricAttr == null || info.providerName() == null) {
                continue; // DiscoveryTest reports malformed infos; the suite can't key them
            }
            String id = info.providerName() + "/" + info.epAttr.type.cName();
            FabricInfo current = best.get(id);
            if (current == null || rank(info) < rank(current)) {
                best.put(id, info);
            }
        }
        List<FabricCase> out = new ArrayList<>();
        best.forEach((id, info) -> out.add(new FabricCase(id, info)));
        return List.copyOf(out);
    }

    private static List<FabricInfo> getInfo(FabricInfo hints) {
        try {
            return Fabrics.getInfo(hints);
        } catch (FabricException e) {
            if (e.errno() == Errno.ENODATA) {
                return List.of();
            }
            throw e;
        }
    }

    /** Lower is better: IPv4 loopback, IPv6 loopback, a non-socket address, then anything else. */
    static int rank(FabricInfo info) {
        if (info.srcAddr != null && isSockaddr(info.addrFormat)) {
            InetAddress a = sockaddrHost(info.srcAddr);
            if (a != null && a.isLoopbackAddress()) {
                return a.getAddress().length == 4 ? 0 : 1;
            }
            return 3;
        }
        if ("lo".equals(info.domainAttr == null ? null : info.domainAttr.name)) {
            return 1;
        }
        return 2;
    }

    static boolean isSockaddr(AddressFormat f) {
        return f == AddressFormat.SOCKADDR || f == AddressFormat.SOCKADDR_IN || f == AddressFormat.SOCKADDR_IN6;
    }

    /** The host of a C sockaddr_in / sockaddr_in6 in bytes (family in host order), or null. */
    static InetAddress sockaddrHost(byte[] sa) {
        try {
            if (sa.length >= 8 && (sa[0] == 2 || sa[1] == 2)) {
                return InetAddress.getByAddress(Arrays.copyOfRange(sa, 4, 8));
            }
            if (sa.length >= 24 && (sa[0] == 10 || sa[1] == 10)) {
                return InetAddress.getByAddress(Arrays.copyOfRange(sa, 8, 24));
            }
        } catch (UnknownHostException e) {
            return null;
        }
        return null;
    }
}
