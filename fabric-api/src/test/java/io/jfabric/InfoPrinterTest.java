package io.jfabric;

import io.jfabric.testprov.MimicShmProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * InfoPrinter against real `fi_info -v` output captured from libfabric 1.17 on this machine
 * (src/test/resources/golden), using the test-scope providers that carry 1.17's attribute values
 * and the hints fi_info builds (mode ~0, domain mode ~0, mr_mode ~(BASIC|SCALABLE)).
 */
@Timeout(30)
class InfoPrinterTest {
    static FabricInfo fiInfoHints(String prov, EndpointType type) {
        FabricInfo h = FabricInfo.hints();
        h.mode = ~0L;
        h.domainAttr.mode = ~0L;
        h.domainAttr.mrMode = ~(MrMode.BASIC | MrMode.SCALABLE);
        h.fabricAttr.provName = prov;
        h.epAttr.type = type;
        return h;
    }

    static String golden(String name) throws IOException {
        try (InputStream in = InfoPrinterTest.class.getResourceAsStream("/golden/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void tcpMsgMatchesFiInfo() throws IOException {
        List<FabricInfo> infos = Fabrics.getInfo(fiInfoHints("tcp", EndpointType.MSG));
        assertEquals(golden("tcp_msg.txt"), "---\n" + InfoPrinter.toString(infos.get(0)));
    }

    @Test
    void layeredRxmMatchesFiInfo() throws IOException {
        List<FabricInfo> infos = Fabrics.getInfo(fiInfoHints("tcp;ofi_rxm", EndpointType.UNSPEC));
        assertEquals(golden("tcp_rxm.txt"), InfoPrinter.verbose(List.of(infos.get(0))));
    }

    @Test
    void shmMatchesFiInfo() throws IOException {
        String saved = MimicShmProvider.address;
        MimicShmProvider.address = "fi_shm://22327"; // the pid fi_info had when the golden file was captured
        try {
            List<FabricInfo> infos = Fabrics.getInfo(fiInfoHints("shm", EndpointType.UNSPEC));
            assertEquals(golden("shm.txt"), InfoPrinter.verbose(List.of(infos.get(0))));
        } finally {
            MimicShmProvider.address = saved;
        }
    }

    @Test
    void summaryIsFiInfosShortForm() {
        FabricInfo i = Fabrics.getInfo(fiInfoHints("tcp", EndpointType.MSG)).get(0);
        assertEquals("""
                provider: tcp
                    fabric: 192.0.2.0/24
                    domain: eth0
                    version: 117.0
                    type: FI_EP_MSG
                    protocol: FI_PROTO_SOCK_TCP
                """, InfoPrinter.summary(i));
        assertEquals("tcp:\n    version: 117.0\n", InfoPrinter.providerEntry("tcp", Fabrics.version(117, 0)));
    }

    @Test
    void addressesPrintAsFiStraddr() {
        byte[] in6 = new byte[28];
        in6[0] = 10;
        in6[2] = 0x24;
        in6[3] = 0x0c; // port 9228
        int[] fe80 = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0xfc, 0, 0xff, 0xfe, 0, 0, 1};
        for (int k = 0; k < 16; k++) {
            in6[8 + k] = (byte) fe80[k];
        }
        assertEquals("fi_sockaddr_in6://[fe80::fc:ff:fe00:1]:9228", InfoPrinter.address(AddressFormat.SOCKADDR_IN6, in6));
        assertEquals("fi_sockaddr_in6://[fe80::fc:ff:fe00:1]:9228", InfoPrinter.address(AddressFormat.SOCKADDR, in6));
        byte[] in = new byte[16];
        in[0] = 2;
        in[3] = 80;
        in[4] = 127;
        in[7] = 1;
        assertEquals("fi_sockaddr_in://127.0.0.1:80", InfoPrinter.address(AddressFormat.SOCKADDR_IN, in));
        assertEquals("(null)", InfoPrinter.address(AddressFormat.SOCKADDR_IN, null));
        assertEquals("fi_shm://42", InfoPrinter.address(AddressFormat.ADDR_STR, "fi_shm://42".getBytes()));
    }

    @Test
    void ipv6CompressionFollowsInetNtop() {
        assertEquals("::1", InfoPrinter.ipv6(v6(0, 0, 0, 0, 0, 0, 0, 1), 0));
        assertEquals("::", InfoPrinter.ipv6(v6(0, 0, 0, 0, 0, 0, 0, 0), 0));
        assertEquals("fd00::", InfoPrinter.ipv6(v6(0xfd00, 0, 0, 0, 0, 0, 0, 0), 0));
        assertEquals("1:0:2::3", InfoPrinter.ipv6(v6(1, 0, 2, 0, 0, 0, 0, 3), 0));
        assertEquals("::ffff:10.0.0.1", InfoPrinter.ipv6(v6(0, 0, 0, 0, 0, 0xffff, 0x0a00, 1), 0));
    }

    private static byte[] v6(int... groups) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[2 * i] = (byte) (groups[i] >> 8);
            b[2 * i + 1] = (byte) groups[i];
        }
        return b;
    }

    @Test
    void emptyAndSharedFieldsPrintLikeFiTostr() {
        FabricInfo h = FabricInfo.hints();
        h.epAttr.txCtxCnt = Fabrics.SHARED_CONTEXT;
        String s = InfoPrinter.toString(h);
        assertTrue(s.contains("        tx_ctx_cnt: FI_SHARED_CONTEXT\n"), s);
        assertTrue(s.contains("    caps: [  ]\n"), s);
        assertTrue(s.contains("        name: (null)\n"), s);
        assertTrue(s.contains("        comp_order: [ FI_ORDER_NONE ]\n"), s);
        assertTrue(s.endsWith("    nic: (nil)\n"), s);
    }
}
