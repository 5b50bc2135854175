package io.jfabric.internal;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.spi.ProviderStatus;
import io.jfabric.testprov.BrokenProvider;
import io.jfabric.testprov.UnavailableVerbsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FI_PROVIDER include/exclude, hints prov_name with layered names in either order, libfabric's
 * default order, versions, FI_PROV_ATTR_ONLY, providers that fail or are unavailable, and the
 * no-match explanation. Expected results follow libfabric 1.17's rules (libfabric-notes §1.2) for
 * the test-scope tcp (3 MSG infos), shm (1 RDM info) and ofi_rxm providers.
 */
@Timeout(30)
class ProviderSelectionTest {
    private final Discovery d = Discovery.load();

    /** Result names, run-length compressed: "tcp;ofi_rxm*3 shm tcp*3". */
    static String names(List<FabricInfo> infos) {
        List<String> out = new ArrayList<>();
        String last = null;
        int n = 0;
        for (FabricInfo i : infos) {
            String name = i.providerName();
            if (name.equals(last)) {
                n++;
                continue;
            }
            if (last != null) {
                out.add(n == 1 ? last : last + "*" + n);
            }
            last = name;
            n = 1;
        }
        if (last != null) {
            out.add(n == 1 ? last : last + "*" + n);
        }
        return String.join(" ", out);
    }

    String run(String filter, String provName) {
        FabricInfo hints = null;
        if (!provName.isEmpty()) {
            hints = FabricInfo.hints();
            hints.fabricAttr.provName = provName;
        }
        try {
            return names(d.getInfo(Fabrics.API_VERSION, null, null, 0, hints, filter.isEmpty() ? null : filter));
        } catch (FabricException e) {
            assertEquals(Errno.ENODATA, e.errno(), e.getMessage());
            return "ENODATA";
        }
    }

    @ParameterizedTest(name = "FI_PROVIDER={0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "''              | tcp;ofi_rxm*3 shm tcp*3",
        "tcp             | tcp;ofi_rxm*3 tcp*3",
        "TCP             | tcp;ofi_rxm*3 tcp*3",
        "^tcp            | shm",
        "shm             | shm",
        "^shm            | tcp;ofi_rxm*3 tcp*3",
        "^shm,tcp        | ENODATA",
        "ofi_rxm         | ENODATA",
        "tcp;ofi_rxm     | tcp;ofi_rxm*3",
        "^ofi_rxm        | shm tcp*3",
        "tcp,shm         | tcp;ofi_rxm*3 shm tcp*3",
        "' tcp , shm '   | tcp;ofi_rxm*3 shm tcp*3",
        "nosuch          | ENODATA",
        "^nosuch         | tcp;ofi_rxm*3 shm tcp*3",
    })
    void providerFilter(String filter, String expected) {
        assertEquals(expected, run(filter, ""));
    }

    @ParameterizedTest(name = "prov_name={0} (FI_PROVIDER={1}) -> {2}")
    @CsvSource(delimiter = '|', value = {
        "tcp              | ''  | tcp;ofi_rxm*3 tcp*3",
        "ofi_rxm          | ''  | tcp;ofi_rxm*3",
        "tcp;ofi_rxm      | ''  | tcp;ofi_rxm*3",
        "ofi_rxm;tcp      | ''  | tcp;ofi_rxm*3",
        "OFI_RXM;TCP      | ''  | tcp;ofi_rxm*3",
        "shm              | ''  | shm",
        "shm;ofi_rxm      | ''  | ENODATA",
        "shm              | tcp | ENODATA",
        "tcp;ofi_rxm      | tcp | tcp;ofi_rxm*3",
        "ofi_rxm;tcp      | tcp | tcp;ofi_rxm*3",
        "nosuch           | ''  | ENODATA",
    })
    void layeredNames(String provName, String filter, String expected) {
        assertEquals(expected, run(filter, provName));
    }

    @Test
    void bothOrdersGiveIdenticalInfos() {
        FabricInfo a = FabricInfo.hints();
        a.fabricAttr.provName = "tcp;ofi_rxm";
        FabricInfo b = FabricInfo.hints();
        b.fabricAttr.provName = "ofi_rxm;tcp";
        List<FabricInfo> x = d.getInfo(Fabrics.API_VERSION, null, null, 0, a, null);
        List<FabricInfo> y = d.getInfo(Fabrics.API_VERSION, null, null, 0, b, null);
        assertEquals(x.size(), y.size());
        for (int i = 0; i < x.size(); i++) {
            assertEquals(io.jfabric.InfoPrinter.toString(x.get(i)), io.jfabric.InfoPrinter.toString(y.get(i)));
        }
    }

    @Test
    void systemPropertyIsTheFilter() {
        String saved = System.getProperty(Discovery.FILTER_PROPERTY);
        try {
            System.setProperty(Discovery.FILTER_PROPERTY, "^tcp");
            assertEquals("shm", names(Fabrics.getInfo(null)));
            System.setProperty(Discovery.FILTER_PROPERTY, "tcp");
            assertEquals("tcp;ofi_rxm*3 tcp*3", names(Fabrics.getInfo(null)));
        } finally {
            if (saved == null) {
                System.clearProperty(Discovery.FILTER_PROPERTY);
            } else {
                System.setProperty(Discovery.FILTER_PROPERTY, saved);
            }
        }
    }

    @Test
    void newerApiVersionIsEnosys() {
        var e = assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.version(1, 18), null, null, 0, null, null));
        assertEquals(Errno.ENOSYS, e.errno());
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.version(2, 0), null, null, 0, null, null)).errno());
        assertEquals("tcp;ofi_rxm*3 shm tcp*3", names(d.getInfo(Fabrics.version(1, 5), null, null, 0, null, null)));
    }

    @Test
    void provAttrOnlyListsEachUsableProviderInOrder() {
        List<FabricInfo> infos = d.getInfo(Fabrics.API_VERSION, null, null, Fabrics.PROV_ATTR_ONLY, null, "tcp");
        assertEquals("ofi_rxm shm udp tcp", names(infos));
        for (FabricInfo i : infos) {
            assertEquals(Fabrics.version(117, 0), i.fabricAttr.provVersion);
            assertEquals(EndpointType.UNSPEC, i.epAttr.type);
        }
    }

    @Test
    void unavailableAndBrokenProvidersAreKeptWithTheirReason() {
        List<ProviderStatus> all = d.providers();
        ProviderStatus verbs = all.stream().filter(s -> s.name().equals("verbs")).findFirst().orElseThrow();
        assertEquals(UnavailableVerbsProvider.REASON, verbs.unavailableReason());
        ProviderStatus broken = all.stream().filter(s -> s.name().equals(BrokenProvider.class.getName()))
                .findFirst().orElseThrow();
        assertTrue(broken.unavailableReason().contains(BrokenProvider.MESSAGE), broken.unavailableReason());
        // the default order: verbs before ofi_rxm before shm before tcp; load failures last
        assertEquals(List.of("verbs", "ofi_rxm", "shm", "udp", "tcp", BrokenProvider.class.getName()),
                all.stream().map(ProviderStatus::name).toList());
        assertTrue(all.stream().filter(ProviderStatus::utility).allMatch(s -> s.name().equals("ofi_rxm")));
    }

    @Test
    void sourceFlagNeedsNodeOrService() {
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.API_VERSION, null, null, Fabrics.SOURCE, null, null)).errno());
    }

    @Test
    void noMatchSaysWhyProviderByProvider() {
        FabricInfo h = FabricInfo.hints();
        h.caps = Caps.COLLECTIVE;
        h.epAttr.type = EndpointType.RDM;
        var e = assertThrows(FabricException.class, () -> d.getInfo(Fabrics.API_VERSION, null, null, 0, h, null));
        assertEquals(Errno.ENODATA, e.errno());
        String m = e.getMessage();
        assertTrue(m.contains("\n  tcp: ep_type FI_EP_RDM not supported (offers FI_EP_MSG)"), m);
        assertTrue(m.contains("\n  shm: caps FI_COLLECTIVE not supported"), m);
        assertTrue(m.contains("\n  ofi_rxm: over udp: ") && m.contains("; over tcp: caps FI_COLLECTIVE not supported\n"), m);
        assertTrue(m.contains("\n  verbs: unavailable: " + UnavailableVerbsProvider.REASON), m);
        // the providers listed are the application's own: the CLI's `jfabric info` would list other ones
        assertTrue(m.contains("the providers listed are those on this application's class path"), m);
        assertTrue(!m.contains("jfabric info"), m);
        // a provider whose getInfo throws is skipped, and the message says what it threw
        assertTrue(m.contains("\n  udp: getInfo failed: IllegalStateException: "
                + io.jfabric.testprov.FailingUdpProvider.MESSAGE), m);
    }

    @Test
    void noMatchNamesFilteredAndUnknownProviders() {
        FabricInfo h = FabricInfo.hints();
        h.fabricAttr.provName = "nosuch";
        String m = assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.API_VERSION, null, null, 0, h, "^shm")).getMessage();
        assertTrue(m.contains("names no known provider: nosuch (known: verbs, ofi_rxm, shm, udp, tcp"), m);
        assertTrue(m.contains("\n  shm: excluded by the provider filter '^shm'"), m);
        assertTrue(m.contains("\n  tcp: not selected by hints prov_name 'nosuch'"), m);

        FabricInfo shmRxm = FabricInfo.hints();
        shmRxm.fabricAttr.provName = "shm;ofi_rxm";
        String m2 = assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.API_VERSION, null, null, 0, shmRxm, null)).getMessage();
        assertTrue(m2.contains("ofi_rxm: over shm: the core offers nothing it needs: ep_type FI_EP_MSG not supported"), m2);
    }

    @Test
    void bareUtilityFilterExplainsThatNoCoreIsLeft() {
        String m = assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.API_VERSION, null, null, 0, null, "ofi_rxm")).getMessage();
        assertTrue(m.contains("\n  ofi_rxm: no core provider to layer over (the provider filter 'ofi_rxm' names no core"), m);
        assertTrue(m.contains("\n  tcp: excluded by the provider filter 'ofi_rxm'"), m);
    }

    @Test
    void layeredInfosAreNamedAndCarryTheCoresAddresses() {
        FabricInfo h = FabricInfo.hints();
        h.fabricAttr.provName = "ofi_rxm";
        List<FabricInfo> infos = d.getInfo(Fabrics.API_VERSION, null, null, 0, h, null);
        List<FabricInfo> cores = d.getInfo(Fabrics.API_VERSION, null, null, 0, null, "tcp").stream()
                .filter(i -> i.providerName().equals("tcp")).toList();
        assertEquals(cores.size(), infos.size());
        for (int k = 0; k < infos.size(); k++) {
            FabricInfo l = infos.get(k);
            assertEquals("tcp;ofi_rxm", l.providerName());
            assertEquals(EndpointType.RDM, l.epAttr.type);
            assertEquals(cores.get(k).domainAttr.name, l.domainAttr.name);
            assertEquals(cores.get(k).fabricAttr.name, l.fabricAttr.name);
            assertEquals(cores.get(k).addrFormat, l.addrFormat);
            assertEquals(Fabrics.API_VERSION, l.fabricAttr.apiVersion);
        }
    }

    @Test
    void openFabricGoesToTheOwningProvider() {
        assertEquals("tcp", ProviderNames.owner("tcp"));
        assertEquals("ofi_rxm", ProviderNames.owner("tcp;ofi_rxm"));
        assertEquals("libfabric", ProviderNames.owner("libfabric:tcp;ofi_rxm"));
        assertEquals("libfabric", ProviderNames.owner("libfabric:shm"));
        FabricInfo i = new FabricInfo();
        i.fabricAttr.provName = "nosuch;ofi_nothing";
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class, () -> d.openFabric(i)).errno());
        // the test providers refuse to open: the call reached them
        FabricInfo tcp = d.getInfo(Fabrics.API_VERSION, null, null, 0, null, "tcp").get(0);
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> d.openFabric(tcp)).errno());
    }

    @Test
    void bridgeNamesFollowTheFilterAndLayeringRules() {
        ProviderFilter f = ProviderFilter.parse("libfabric");
        assertTrue(!f.drops("libfabric:tcp") && !f.drops("libfabric:tcp;ofi_rxm") && f.drops("tcp"));
        ProviderFilter neg = ProviderFilter.parse("^libfabric");
        assertTrue(neg.drops("libfabric:shm") && !neg.drops("shm") && neg.hides("libfabric", false));
        assertTrue(!ProviderFilter.parse("libfabric:shm").hides("libfabric", false));
        assertTrue(Layering.ok("libfabric", false, List.of("libfabric:tcp"), false, n -> false));
        // a bridge name covers the whole layered name, in either order; jfabric's own providers stay out
        for (List<String> n : List.of(List.of("libfabric:tcp", "ofi_rxm"), List.of("libfabric:ofi_rxm", "tcp"))) {
            assertTrue(Layering.ok("libfabric", false, n, false, x -> false));
            assertTrue(!Layering.ok("ofi_rxm", true, n, false, x -> false));
            assertTrue(!Layering.ok("tcp", false, n, false, x -> false));
        }
        assertEquals(ProviderNames.DEFAULT_ORDER.size() + 2, ProviderNames.rank("libfabric"));
        assertTrue(ProviderNames.rank("mystery") < ProviderNames.rank("libfabric"));
        assertTrue(ProviderNames.rank("verbs") < ProviderNames.rank("ofi_rxm"));
    }
}
