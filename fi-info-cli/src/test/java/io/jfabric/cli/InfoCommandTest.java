package io.jfabric.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `jfabric info` run in-process through Picocli, with the test-scope "sockets" and unavailable "efa"
 * providers (plus whatever provider modules are on the class path). Exit codes follow fi_info.
 */
@Timeout(30)
class InfoCommandTest {
    record Run(int rc, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = Main.execute(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(rc, out.toString(), err.toString());
    }

    @Test
    void shortListingForOneProvider() {
        Run r = run("info", "-p", "sockets");
        assertEquals(0, r.rc(), r.err());
        assertEquals("""
                provider: sockets
                    fabric: sockets-test-fabric
                    domain: sockets-test
                    version: 117.0
                    type: FI_EP_RDM
                    protocol: FI_PROTO_SOCK_TCP
                """, r.out());
    }

    @Test
    void verboseDumpIsFiTostr() {
        Run r = run("info", "-v", "--provider=sockets");
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.out().startsWith("---\nfi_info:\n    caps: [ FI_MSG, FI_TAGGED, FI_RECV, FI_SEND ]\n"), r.out());
        assertTrue(r.out().contains("    src_addr: fi_sockets://test\n"), r.out());
        assertTrue(r.out().contains("        mem_tag_format: 0xaaaaaaaaaaaaaaaa\n"), r.out());
        assertTrue(r.out().contains("        prov_name: sockets\n        prov_version: 117.0\n        api_version: 1.17\n"));
        assertTrue(r.out().endsWith("    nic: (nil)\n"), r.out());
    }

    @Test
    void infoSubstringFiltersTheDump() {
        Run hit = run("info", "-p", "sockets", "-i", "SOCKETS-TEST");
        assertEquals(0, hit.rc());
        assertTrue(hit.out().startsWith("---\nfi_info:\n"));
        Run miss = run("info", "-p", "sockets", "-i", "no-such-text");
        assertEquals(0, miss.rc());
        assertEquals("", miss.out());
    }

    @Test
    void hintsNarrowAndExplainWhenNothingMatches() {
        assertEquals(0, run("info", "-p", "sockets", "-c", "FI_MSG|FI_TAGGED", "-t", "FI_EP_RDM").rc());
        Run r = run("info", "-p", "sockets", "-t", "FI_EP_MSG");
        assertEquals(61, r.rc());
        assertTrue(r.err().startsWith("fi_getinfo: -61\n"), r.err());
        assertTrue(r.err().contains("sockets: ep_type FI_EP_MSG not supported (offers FI_EP_RDM)"), r.err());
        Run caps = run("info", "-p", "sockets", "--caps=FI_RMA");
        assertEquals(61, caps.rc());
        assertTrue(caps.err().contains("caps FI_RMA not supported"), caps.err());
        Run af = run("info", "-p", "sockets", "-a", "FI_SOCKADDR_IN");
        assertEquals(61, af.rc());
        assertTrue(af.err().contains("addr_format FI_SOCKADDR_IN not supported"), af.err());
    }

    @Test
    void unknownProviderSaysWhichExistAndWhyUnavailable() {
        Run r = run("info", "-p", "nosuch");
        assertEquals(61, r.rc());
        assertTrue(r.err().contains("names no known provider: nosuch (known: "), r.err());
        assertTrue(r.err().contains("sockets"), r.err());
        // a provider the hints do not select is not probed, so its availability is told when it is named
        assertTrue(r.err().contains("efa: not selected by hints prov_name 'nosuch'"), r.err());
        Run efa = run("info", "-p", "efa");
        assertEquals(61, efa.rc());
        assertTrue(efa.err().contains("efa: unavailable: " + TestUnavailableProvider.REASON), efa.err());
    }

    @Test
    void listShowsAvailableProvidersAndVerboseShowsWhyNot() {
        Run r = run("info", "-l");
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.out().contains("sockets:\n    version: 117.0\n"), r.out());
        assertFalse(r.out().contains("efa:"), r.out());
        Run v = run("info", "-l", "--verbose");
        assertEquals(0, v.rc());
        assertTrue(v.out().contains("efa:\n    version: 117.0\n    type: core\n    status: unavailable: "
                + TestUnavailableProvider.REASON + "\n"), v.out());
        assertTrue(v.out().contains("sockets:\n    version: 117.0\n    type: core\n    status: available\n"), v.out());
    }

    @Test
    void envListsParametersWithTypeHelpAndDefault() {
        Run r = run("info", "-e");
        assertEquals(0, r.rc());
        assertTrue(r.out().contains("# FI_PROVIDER: String\n"), r.out());
        assertTrue(r.out().contains("# FI_SOCKETS_TEST_SIZE: size_t\n# sockets: a size (default: 4096)\n\n"), r.out());
        Run g = run("info", "-g", "test_iface");
        assertEquals("# FI_SOCKETS_TEST_IFACE: String\n# sockets: interface the test provider names (default: lo)\n\n",
                g.out());
        System.setProperty("jfabric.sockets.test_iface", "eth 7");
        try {
            assertTrue(run("info", "-g", "TEST_IFACE").out().contains("FI_SOCKETS_TEST_IFACE=\"eth 7\"\n"));
        } finally {
            System.clearProperty("jfabric.sockets.test_iface");
        }
    }

    @Test
    void badValuesAndOptionsExitLikeFiInfo() {
        Run cap = run("info", "-c", "FI_BOGUS");
        assertEquals(22, cap.rc());
        assertEquals("error: Unrecognized capability: FI_BOGUS\n", cap.err());
        assertEquals(22, run("info", "-t", "FI_EP_NOPE").rc());
        assertEquals(22, run("info", "-m", "CONTEXT").rc());
        assertEquals(22, run("info", "-a", "FI_NOWHERE").rc());
        Run unknown = run("info", "-x");
        assertEquals(1, unknown.rc());
        assertTrue(unknown.err().contains("Unknown option: '-x'"), unknown.err());
        Run help = run("info", "-h");
        assertEquals(1, help.rc());
        assertTrue(help.out().contains("-s, --src_addr=ADDR"), help.out());
        assertTrue(help.out().contains("-l, --list"), help.out());
    }

    @Test
    void versionAndTopLevelCommand() {
        Run v = run("info", "--version");
        assertEquals(0, v.rc());
        assertTrue(v.out().endsWith("libfabric api: 1.17\n"), v.out());
        Run top = run();
        assertEquals(1, top.rc());
        assertTrue(top.out().contains("info"), top.out());
        assertEquals(0, run("--version").rc());
    }

    @Test
    void providerFilterPropertyApplies() {
        System.setProperty("jfabric.provider", "^sockets");
        try {
            Run r = run("info", "-p", "sockets");
            assertEquals(61, r.rc());
            assertTrue(r.err().contains("sockets: excluded by the provider filter '^sockets'"), r.err());
        } finally {
            System.clearProperty("jfabric.provider");
        }
    }
}
