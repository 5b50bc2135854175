package io.jfabric.conformance;

import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.Threading;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mercury's NA OFI hints (test data in mercury-na-ofi-hints.properties, taken from na_ofi.c) against jfabric's
 * provider of the same name and against {@code libfabric:<name>}: shm and tcp;ofi_rxm match as libfabric's do,
 * and each info returned is one Mercury keeps (its cq_data_size check). Mercury's "tcp" asks for FI_EP_RDM,
 * which jfabric's tcp (FI_EP_MSG only; RDM over tcp is tcp;ofi_rxm) does not offer: docs/differences.md.
 */
@Timeout(60)
class MercuryHintsTest {
    /** Mercury's NA_OFI_VERSION when built against libfabric 1.16 to 1.19. */
    static final int MERCURY_API = Fabrics.version(1, 13);
    /** Configurations jfabric answers differently on purpose, with the word the no-match reason gives. */
    static final Map<String, String> JFABRIC_REFUSES = Map.of("tcp", "ep_type");

    static final Properties DATA = load();

    static Properties load() {
        Properties p = new Properties();
        try (InputStream in = MercuryHintsTest.class.getResourceAsStream("/mercury-na-ofi-hints.properties")) {
            assertNotNull(in, "mercury-na-ofi-hints.properties on the test class path");
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    static Stream<String> configs() {
        return Arrays.stream(DATA.getProperty("configs").split(",")).map(String::trim);
    }

    static String get(String config, String key) {
        String v = DATA.getProperty(config + "." + key);
        assertNotNull(v, config + "." + key + " in the Mercury hint data");
        return v.trim();
    }

    /** na_ofi_getinfo's hints for {@code config}, naming {@code provider}. */
    static FabricInfo hints(String config, String provider) {
        FabricInfo h = FabricInfo.hints();
        h.fabricAttr.provName = provider;
        h.epAttr.type = EndpointType.parse(get(config, "ep_type"));
        h.caps = Caps.parse(get(config, "caps"));
        h.mode = Mode.parse(get(config, "mode"));
        h.addrFormat = AddressFormat.parse(get(config, "addr_format"));
        h.epAttr.protocol = Protocol.parse(get(config, "protocol"));
        h.domainAttr.mrMode = MrMode.parse(get(config, "mr_mode"));
        h.txAttr.opFlags = OpFlags.parse(get(config, "tx_op_flags"));
        h.domainAttr.resourceMgmt = ResourceMgmt.parse(get(config, "resource_mgmt"));
        Progress progress = Progress.parse(get(config, "progress"));
        h.domainAttr.controlProgress = progress;
        h.domainAttr.dataProgress = progress;
        h.domainAttr.threading = Threading.parse(get(config, "threading"));
        h.txAttr.size = Long.parseLong(get(config, "tx_size"));
        h.rxAttr.size = Long.parseLong(get(config, "rx_size"));
        return h;
    }

    /** The infos the hints match, or empty with the no-match reason in {@code reason[0]}. */
    static List<FabricInfo> match(FabricInfo hints, String[] reason) {
        try {
            return Fabrics.getInfo(MERCURY_API, null, null, 0, hints);
        } catch (FabricException e) {
            assertEquals(Errno.ENODATA, e.errno(), e.getMessage());
            reason[0] = e.getMessage();
            return List.of();
        }
    }

    /** Every info Mercury asked for keeps the hints' defining attributes and passes its cq_data_size check. */
    static void assertMercuryCanUse(String config, FabricInfo hints, List<FabricInfo> infos) {
        long minCqData = Long.parseLong(get(config, "min_cq_data_size"));
        for (FabricInfo i : infos) {
            String what = config + ": " + i;
            assertEquals(hints.epAttr.type, i.epAttr.type, what);
            assertEquals(hints.caps, i.caps & hints.caps, what + ": caps " + Caps.toString(i.caps));
            assertEquals(hints.txAttr.opFlags, i.txAttr.opFlags, what + ": tx op_flags");
            assertEquals(hints.epAttr.protocol, i.epAttr.protocol, what);
            assertTrue(i.domainAttr.cqDataSize >= minCqData, what + ": cq_data_size " + i.domainAttr.cqDataSize);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void mercurysHintsMatchAsTheyMatchLibfabric(String config) {
        String name = get(config, "prov_name");
        String nativeName = "libfabric:" + name;
        Set<String> offered = FabricCases.cases().stream().map(FabricCase::provider)
                .map(GetInfoTest::canonical).collect(Collectors.toSet());
        boolean java = offered.contains(GetInfoTest.canonical(name));
        boolean nat = offered.contains(GetInfoTest.canonical(nativeName));
        org.junit.jupiter.api.Assumptions.assumeTrue(java || nat,
                () -> "not run: neither " + name + " nor " + nativeName + " is discovered here (FI_PROVIDER?)");
        String[] nativeReason = new String[1];
        List<FabricInfo> natives = nat ? match(hints(config, nativeName), nativeReason) : List.of();
        if (nat) {
            assertMercuryCanUse(config, hints(config, nativeName), natives);
        }
        if (!java) {
            return;
        }
        FabricInfo h = hints(config, name);
        String[] reason = new String[1];
        List<FabricInfo> infos = match(h, reason);
        String refusal = JFABRIC_REFUSES.get(config);
        if (refusal != null) {
            assertTrue(infos.isEmpty(), config + ": jfabric's " + name + " answers Mercury's hints with " + infos);
            assertTrue(reason[0].contains(refusal), config + ": the no-match reason names " + refusal + ": "
                    + reason[0]);
            return;
        }
        assertFalse(infos.isEmpty(), config + ": jfabric's " + name + " refuses Mercury's hints: " + reason[0]);
        assertMercuryCanUse(config, h, infos);
        if (nat) {
            assertFalse(natives.isEmpty(), config + ": jfabric matches where " + nativeName + " does not: "
                    + nativeReason[0]);
        }
    }
}
