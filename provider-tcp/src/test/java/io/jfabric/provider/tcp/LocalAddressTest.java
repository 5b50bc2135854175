package io.jfabric.provider.tcp;

import io.jfabric.Caps;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.util.Sockaddr;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** tcp's address list: libfabric's order and fabric names (docs/differences.md, Discovery). */
class LocalAddressTest {
    private static LocalAddress at(String ip, int prefix, long speed) throws Exception {
        return new LocalAddress("eth9", InetAddress.getByName(ip), prefix, speed, false);
    }

    @Test
    void fabricNamesAreTheNetworkInInetNtopText() throws Exception {
        assertEquals("fd00::/64", at("fd00::2", 64, 0).fabricName());
        assertEquals("fe80::/64", at("fe80::fc:ff:fe00:1", 64, 0).fabricName());
        assertEquals("2001:db8:0:1::/64", at("2001:db8:0:1:aa::7", 64, 0).fabricName());
        assertEquals("2001:db8::/32", at("2001:db8:0:1:aa::7", 32, 0).fabricName());
        assertEquals("192.0.2.0/24", at("192.0.2.2", 24, 0).fabricName());
        assertEquals("10.2.0.0/15", at("10.3.255.3", 15, 0).fabricName());
        assertEquals("127.0.0.1/32",
                new LocalAddress("lo", LocalAddress.LOOPBACK_V4, 32, 0, true).fabricName());
        assertEquals("::1/128", new LocalAddress("lo", LocalAddress.LOOPBACK_V6, 128, 0, true).fabricName());
    }

    @Test
    void fasterLinksFirstThenIpv4ThenHigherAddresses() throws Exception {
        LocalAddress unknownSpeed = at("198.18.0.1", 24, 0xFFFFFFFFL);
        LocalAddress fast6 = at("fd01::9", 64, 100_000);
        LocalAddress v4high = at("192.0.2.2", 24, 0);
        LocalAddress v4low = at("10.0.0.1", 8, 0);
        LocalAddress linkLocal = at("fe80::1", 64, 0);
        LocalAddress v6 = at("fd00::2", 64, 0);
        List<LocalAddress> l = new ArrayList<>(List.of(v6, v4low, linkLocal, v4high, fast6, unknownSpeed));
        l.sort(LocalAddress.LIBFABRIC_ORDER);
        assertEquals(List.of(unknownSpeed, fast6, v4high, v4low, linkLocal, v6), l);
    }

    @Test
    void anUnknownSpeedSortsAsLibfabricReadsIt() {
        assertEquals(0, LocalAddress.linkSpeed("no-such-interface-here"));
        // lo reports no speed at all (EINVAL): 0, behind every interface that reports one
        assertEquals(0, LocalAddress.linkSpeed("lo"));
    }

    @Test
    void loopbackComesLastAsLibfabricsTwoEntriesForLocalCommunicationOnly() throws Exception {
        List<LocalAddress> l = LocalAddress.list();
        int firstLoopback = 0;
        while (firstLoopback < l.size() && !l.get(firstLoopback).loopback()) {
            assertFalse(l.get(firstLoopback).address().isLoopbackAddress(), l.toString());
            firstLoopback++;
        }
        List<String> tail = l.subList(firstLoopback, l.size()).stream().map(LocalAddress::fabricName).toList();
        assertTrue(tail.equals(List.of("127.0.0.1/32", "::1/128")) || tail.equals(List.of("127.0.0.1/32")),
                tail.toString());
        List<LocalAddress> head = new ArrayList<>(l.subList(0, firstLoopback));
        head.sort(LocalAddress.LIBFABRIC_ORDER);
        assertEquals(head, l.subList(0, firstLoopback), "the interfaces' addresses are in libfabric's order");

        List<FabricInfo> infos = new TcpProvider().getInfo(Fabrics.API_VERSION, null, null, 0, null);
        assertEquals(l.stream().map(LocalAddress::fabricName).toList(),
                infos.stream().map(i -> i.fabricAttr.name).toList());
        for (FabricInfo i : infos) {
            boolean lo = Sockaddr.toInet(i.srcAddr).getAddress().isLoopbackAddress();
            long comm = lo ? Caps.LOCAL_COMM : Caps.LOCAL_COMM | Caps.REMOTE_COMM;
            assertEquals(comm, i.caps & (Caps.LOCAL_COMM | Caps.REMOTE_COMM), i.fabricAttr.name);
            assertEquals(comm, i.domainAttr.caps, i.fabricAttr.name);
        }

        FabricInfo remote = FabricInfo.hints();
        remote.caps = Caps.MSG | Caps.REMOTE_COMM;
        for (FabricInfo i : new TcpProvider().getInfo(Fabrics.API_VERSION, null, null, 0, remote)) {
            assertFalse(Sockaddr.toInet(i.srcAddr).getAddress().isLoopbackAddress(),
                    "hints asking FI_REMOTE_COMM skip the loopback infos, as libfabric's do: " + i.fabricAttr.name);
        }
        FabricInfo local = FabricInfo.hints();
        local.caps = Caps.MSG | Caps.LOCAL_COMM;
        assertTrue(new TcpProvider().getInfo(Fabrics.API_VERSION, null, null, 0, local).stream()
                .anyMatch(i -> "127.0.0.1/32".equals(i.fabricAttr.name)));
    }

    @Test
    void aDestinationIsReachedFromTheOneInterfaceItsRouteLeavesFrom() throws Exception {
        // libfabric's getinfo takes the source of a destination from the route to it: node 127.0.0.1 gives the
        // loopback info alone, and an address of this host's own interfaces gives that interface's alone
        List<InetAddress> dests = new ArrayList<>(List.of(LocalAddress.LOOPBACK_V4));
        for (LocalAddress a : LocalAddress.list()) {
            if (!a.loopback() && !a.address().isLinkLocalAddress()) {
                dests.add(a.address());
            }
        }
        for (InetAddress d : dests) {
            assertEquals(d, LocalAddress.routeTo(d), "a local address is reached from itself");
            List<FabricInfo> infos = new TcpProvider().getInfo(Fabrics.API_VERSION, d.getHostAddress(), "7000", 0,
                    FabricInfo.hints());
            assertFalse(infos.isEmpty(), d.toString());
            for (FabricInfo i : infos) {
                assertEquals(d, Sockaddr.toInet(i.srcAddr).getAddress(), "source of an info for " + d);
                assertEquals(new InetSocketAddress(d, 7000), Sockaddr.toInet(i.destAddr));
            }
        }
    }
}
