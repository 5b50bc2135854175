package io.jfabric.internal;

import io.jfabric.FabricInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Routable source addresses ahead of link-local ones, within each provider, unless an address was named. */
@Timeout(10)
class InfoOrderTest {

    static byte[] sin(int a, int b) {
        return new byte[] {2, 0, 0x12, 0x67, (byte) a, (byte) b, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0};
    }

    static byte[] sin6(int first, int second, int last) {
        byte[] s = new byte[28];
        s[0] = 10;
        s[8] = (byte) first;
        s[9] = (byte) second;
        s[23] = (byte) last;
        return s;
    }

    static FabricInfo info(String prov, String label, byte[] src) {
        FabricInfo i = FabricInfo.hints();
        i.fabricAttr.provName = prov;
        i.fabricAttr.name = label;
        i.srcAddr = src;
        return i;
    }

    /** The fabric names, which the tests use as labels, in order. */
    static List<String> labels(List<FabricInfo> infos) {
        return infos.stream().map(i -> i.providerName() + ":" + i.fabricAttr.name).toList();
    }

    /** What jfabric's tcp answered on a host whose eth0 has fe80::/64, fd00::/64 and 192.0.2.0/24. */
    static List<FabricInfo> javaEnumerationOrder(String prov) {
        return List.of(info(prov, "fe80", sin6(0xfe, 0x80, 1)), info(prov, "fd00", sin6(0xfd, 0, 2)),
                info(prov, "192", sin(192, 0)), info(prov, "zeroconf", sin(169, 254)), info(prov, "lo", sin(127, 0)));
    }

    @Test
    void linkLocalAddressesGoBehindRoutableOnesWithinEachProvider() {
        List<FabricInfo> infos = new ArrayList<>(javaEnumerationOrder("tcp;ofi_rxm"));
        infos.add(info("shm", "shm", null));
        infos.addAll(javaEnumerationOrder("tcp"));
        InfoOrder.preferRoutable(infos, null, null);
        assertEquals(List.of("tcp;ofi_rxm:fd00", "tcp;ofi_rxm:192", "tcp;ofi_rxm:lo", "tcp;ofi_rxm:fe80",
                "tcp;ofi_rxm:zeroconf", "shm:shm", "tcp:fd00", "tcp:192", "tcp:lo", "tcp:fe80", "tcp:zeroconf"),
                labels(infos));
    }

    @Test
    void hintsThatNameAnAddressKeepTheProvidersOrder() {
        FabricInfo hints = FabricInfo.hints();
        hints.srcAddr = sin6(0xfe, 0x80, 1);
        List<FabricInfo> infos = new ArrayList<>(javaEnumerationOrder("tcp"));
        InfoOrder.preferRoutable(infos, null, hints);
        assertEquals(labels(javaEnumerationOrder("tcp")), labels(infos));

        FabricInfo toPeer = FabricInfo.hints();
        toPeer.destAddr = sin(192, 0);
        InfoOrder.preferRoutable(infos, null, toPeer);
        assertEquals(labels(javaEnumerationOrder("tcp")), labels(infos));

        InfoOrder.preferRoutable(infos, "fe80::1", null);
        assertEquals(labels(javaEnumerationOrder("tcp")), labels(infos));
    }

    @Test
    void theBridgeKeepsLibfabricsOwnOrder() {
        List<FabricInfo> infos = new ArrayList<>(javaEnumerationOrder("libfabric:tcp"));
        InfoOrder.preferRoutable(infos, null, null);
        assertEquals(labels(javaEnumerationOrder("libfabric:tcp")), labels(infos));
    }

    @Test
    void linkLocalMeansFe80Slash10AndIpv4Zeroconf() {
        assertTrue(InfoOrder.isLinkLocal(sin6(0xfe, 0x80, 1)));
        assertTrue(InfoOrder.isLinkLocal(sin6(0xfe, 0xbf, 1)));
        assertFalse(InfoOrder.isLinkLocal(sin6(0xfe, 0xc0, 1)), "fec0::/10 is site-local, not link-local");
        assertFalse(InfoOrder.isLinkLocal(sin6(0, 0, 1)), "::1");
        assertTrue(InfoOrder.isLinkLocal(sin(169, 254)));
        assertFalse(InfoOrder.isLinkLocal(sin(169, 253)));
        assertFalse(InfoOrder.isLinkLocal(null));
        assertFalse(InfoOrder.isLinkLocal("fi_shm://1".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    }
}
