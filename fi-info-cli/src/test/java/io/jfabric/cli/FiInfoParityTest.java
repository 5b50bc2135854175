package io.jfabric.cli;

import io.jfabric.Fabrics;
import io.jfabric.spi.ProviderStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * `jfabric info` over the libfabric bridge prints what libfabric's own `fi_info` prints, byte for
 * byte once the bridge's "libfabric:" name prefix is removed. Needs the bridge available and fi_info
 * (Debian package libfabric-bin) installed; otherwise the test reports why it did not run.
 */
@Timeout(60)
class FiInfoParityTest {
    static String fiInfo(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add("fi_info");
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(false);
        pb.environment().remove("FI_PROVIDER");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(p.waitFor(30, TimeUnit.SECONDS), "fi_info did not finish in 30 s");
        return out;
    }

    /** fi_info is installed and FI_PROVIDER, which would filter it and jfabric differently, is unset. */
    static void assumeFiInfo() {
        boolean fiInfo = Files.isExecutable(Path.of("/usr/bin/fi_info")) || Files.isExecutable(Path.of("/usr/local/bin/fi_info"));
        assumeTrue(fiInfo, "fi_info is not installed (apt-get install libfabric-bin)");
        assumeTrue(System.getenv("FI_PROVIDER") == null, "FI_PROVIDER is set; it filters both sides differently");
    }

    static void assumeBridgeAndFiInfo() {
        assumeFiInfo();
        ProviderStatus bridge = Fabrics.providers().stream().filter(s -> s.name().equals("libfabric")).findFirst()
                .orElse(null);
        assumeTrue(bridge != null, "provider-libfabric (the libfabric provider) is not on the class path");
        assumeTrue(bridge.available(), "the libfabric provider is unavailable: " + bridge.unavailableReason());
    }

    @Test
    void verboseDumpOfTcpMsgIsIdentical() throws Exception {
        assumeBridgeAndFiInfo();
        String expected = withBridgeDifferences(fiInfo("-v", "-p", "tcp", "-t", "FI_EP_MSG"));
        InfoCommandTest.Run r = InfoCommandTest.run("info", "-v", "-p", "libfabric:tcp", "-t", "FI_EP_MSG");
        assertEquals(0, r.rc(), r.err());
        assertEquals(expected, r.out().replace("libfabric:", ""));
    }

    /**
     * The one field the bridge changes on purpose (docs/differences.md, shared receive contexts): it passes no
     * fi_srx_context through, so its infos say max_ep_srx_ctx 0 whatever the native provider offers.
     */
    static String withBridgeDifferences(String fiInfoVerbose) {
        return fiInfoVerbose.replaceAll("(?m)^(?<field>\\s*max_ep_srx_ctx: )\\d+$", "${field}0");
    }

    @Test
    void shortListingOfEverythingIsIdentical() throws Exception {
        assumeBridgeAndFiInfo();
        String expected = fiInfo();
        // no hints, as plain fi_info; the provider filter keeps only the bridge
        System.setProperty("jfabric.provider", "libfabric");
        InfoCommandTest.Run r;
        try {
            r = InfoCommandTest.run("info");
        } finally {
            System.clearProperty("jfabric.provider");
        }
        assertEquals(0, r.rc(), r.err());
        assertEquals(expected, r.out().replace("libfabric:", ""));
    }

    @Test
    void layeredNamesInEitherOrderMatchFiInfo() throws Exception {
        assumeBridgeAndFiInfo();
        String expected = fiInfo("-p", "tcp;ofi_rxm");
        for (String name : List.of("libfabric:tcp;ofi_rxm", "libfabric:ofi_rxm;tcp")) {
            InfoCommandTest.Run r = InfoCommandTest.run("info", "-p", name);
            assertEquals(0, r.rc(), r.err());
            assertEquals(expected, r.out().replace("libfabric:", ""), name);
        }
    }

    /**
     * jfabric's own tcp lists the addresses libfabric's tcp lists, in its order and with its fabric names, so the
     * first info and a fabric name copied from fi_info are the same in both. Link-local addresses are the one
     * documented difference (docs/differences.md, Discovery): jfabric moves them behind the others.
     */
    @Test
    void javaTcpListsFiInfosAddressesInItsOrder() throws Exception {
        assumeFiInfo();
        List<String> expected = fabricsAndDomains(fiInfo("-p", "tcp", "-t", "FI_EP_MSG"));
        InfoCommandTest.Run r = InfoCommandTest.run("info", "-p", "tcp", "-t", "FI_EP_MSG");
        assertEquals(0, r.rc(), r.err());
        List<String> actual = fabricsAndDomains(r.out());
        assertTrue(actual.size() >= 2 && expected.size() >= 2, "fi_info: " + expected + ", jfabric: " + actual);
        List<String> linkLocal = expected.stream().filter(FiInfoParityTest::linkLocal).toList();
        List<String> routable = new ArrayList<>(expected);
        routable.removeAll(linkLocal);
        List<String> routableThenLinkLocal = new ArrayList<>(routable);
        routableThenLinkLocal.addAll(linkLocal);
        if (!routableThenLinkLocal.equals(actual)) {
            // libfabric orders addresses of one speed and family by getifaddrs' order reversed, jfabric by address
            // (docs/differences.md): the same set, the same first info, loopback last in both
            assertEquals(routableThenLinkLocal.stream().sorted().toList(), actual.stream().sorted().toList());
            assertEquals(routableThenLinkLocal.getFirst(), actual.getFirst());
            assertEquals(List.of("127.0.0.1/32 lo", "::1/128 lo"),
                    routable.subList(routable.size() - 2, routable.size()));
            assertEquals(routable.subList(routable.size() - 2, routable.size()),
                    actual.subList(routable.size() - 2, routable.size()));
        }
    }

    /**
     * A destination without a source gives, in both, the infos of the interface the route to it leaves from:
     * loopback's for 127.0.0.1, and for each routable address fi_info lists (this host's own, reached from itself).
     */
    @Test
    void aDestinationGivesTheInterfaceFiInfoRoutesItFrom() throws Exception {
        assumeFiInfo();
        List<String> dests = new ArrayList<>(List.of("127.0.0.1"));
        for (String fd : fabricsAndDomains(fiInfo("-p", "tcp", "-t", "FI_EP_MSG"))) {
            if (!linkLocal(fd) && !fd.endsWith(" lo")) {
                dests.add(fd.substring(0, fd.indexOf('/'))); // the network's first address: routed by its interface
            }
        }
        for (String dest : dests) {
            List<String> expected = fabricsAndDomains(fiInfo("-p", "tcp", "-t", "FI_EP_MSG", "-n", dest));
            InfoCommandTest.Run r = InfoCommandTest.run("info", "-p", "tcp", "-t", "FI_EP_MSG", "-n", dest);
            assertEquals(0, r.rc(), r.err());
            if (dest.equals("127.0.0.1")) {
                assertEquals(List.of("127.0.0.1/32 lo"), expected, "fi_info -n 127.0.0.1");
            }
            assertEquals(expected, fabricsAndDomains(r.out()), "-n " + dest);
        }
    }

    /**
     * jfabric's tcp and tcp;ofi_rxm promise the message orders libfabric's do, 1.17's RMA and atomic forms
     * included, so hints written for libfabric's (FI_ORDER_RMA_RAW, say) find them; rxm orders what its core
     * orders, as libfabric's rxm_info_to_rxm takes them.
     */
    @Test
    void javaTcpAndRxmPromiseFiInfosMessageOrders() throws Exception {
        assumeFiInfo();
        for (String[] pt : new String[][] {{"tcp", "FI_EP_MSG"}, {"tcp;ofi_rxm", "FI_EP_RDM"}}) {
            List<String> expected = msgOrders(fiInfo("-v", "-p", pt[0], "-t", pt[1]));
            InfoCommandTest.Run r = InfoCommandTest.run("info", "-v", "-p", pt[0], "-t", pt[1]);
            assertEquals(0, r.rc(), r.err());
            List<String> actual = msgOrders(r.out());
            assertTrue(!expected.isEmpty() && expected.getFirst().contains("FI_ORDER_RMA_RAW"), pt[0] + ": " + expected);
            assertEquals(expected.getFirst(), actual.getFirst(), pt[0] + " tx_attr msg_order");
            assertEquals(expected.get(1), actual.get(1), pt[0] + " rx_attr msg_order");
        }
    }

    /** The msg_order lines of a verbose listing, in order (tx then rx of each info). */
    private static List<String> msgOrders(String verbose) {
        return verbose.lines().map(String::trim).filter(l -> l.startsWith("msg_order:")).toList();
    }

    /** "fabric domain" of each info of a short listing. */
    private static List<String> fabricsAndDomains(String listing) {
        List<String> out = new ArrayList<>();
        String fabric = null;
        for (String line : listing.split("\n")) {
            String t = line.trim();
            if (t.startsWith("fabric: ")) {
                fabric = t.substring(8);
            } else if (t.startsWith("domain: ") && fabric != null) {
                out.add(fabric + " " + t.substring(8));
                fabric = null;
            }
        }
        return out;
    }

    private static boolean linkLocal(String fabricAndDomain) {
        return fabricAndDomain.startsWith("fe8") || fabricAndDomain.startsWith("fe9")
                || fabricAndDomain.startsWith("fea") || fabricAndDomain.startsWith("feb")
                || fabricAndDomain.startsWith("169.254.");
    }
}
