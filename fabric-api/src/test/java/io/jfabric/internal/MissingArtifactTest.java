package io.jfabric.internal;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.testprov.MimicRxmProvider;
import io.jfabric.testprov.MimicShmProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application that names a provider jfabric has but whose artifact it did not add (ofi_rxm without tcp, the
 * bridge absent) is told which artifact to add, instead of "no known provider". fabric-api's tests see only the
 * test providers, so the bridge is absent everywhere here, and a discovery without the mimic tcp lacks tcp.
 */
@Timeout(30)
class MissingArtifactTest {
    /** ofi_rxm and shm only, as an application that depends on provider-rxm and provider-shm without tcp. */
    private final Discovery withoutTcp = new Discovery(List.of(
            new Discovery.Candidate(MimicRxmProvider.class.getName(), MimicRxmProvider::new),
            new Discovery.Candidate(MimicShmProvider.class.getName(), MimicShmProvider::new)));

    private static String noMatch(Discovery d, String provName, String filter) {
        FabricInfo hints = null;
        if (provName != null) {
            hints = FabricInfo.hints();
            hints.fabricAttr.provName = provName;
        }
        FabricInfo h = hints;
        FabricException e = assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.API_VERSION, null, null, 0, h, filter));
        assertEquals(Errno.ENODATA, e.errno(), e.getMessage());
        return e.getMessage();
    }

    @Test
    void hintsNamingAMissingCoreSayWhichArtifactToAdd() {
        String m = noMatch(withoutTcp, "tcp;ofi_rxm", null);
        assertTrue(m.contains("\n  provider 'tcp' is not on the class path: add io.jfabric:provider-tcp "
                + "(or io.jfabric:jfabric-all)"), m);
        assertFalse(m.contains("no known provider"), m);
        assertFalse(m.contains("ofi_rxm' is not on"), "ofi_rxm is there:\n" + m);
        assertFalse(m.contains("jfabric info"), "the CLI's providers are not the application's:\n" + m);
    }

    @Test
    void aFilterNamingAMissingProviderSaysWhichArtifactToAdd() {
        String m = noMatch(withoutTcp, null, "tcp");
        assertTrue(m.contains("(FI_PROVIDER/jfabric.provider='tcp')"), m);
        assertTrue(m.contains("provider 'tcp' is not on the class path: add io.jfabric:provider-tcp"), m);
        // an exclusion asks for nothing
        FabricInfo h = FabricInfo.hints();
        h.caps = io.jfabric.Caps.COLLECTIVE;
        String excluded = assertThrows(FabricException.class,
                () -> withoutTcp.getInfo(Fabrics.API_VERSION, null, null, 0, h, "^tcp")).getMessage();
        assertFalse(excluded.contains("is not on the class path"), excluded);
    }

    @Test
    void aBridgeNameSaysToAddTheBridgeAndOnlyTheBridge() {
        Discovery all = Discovery.load();
        String m = noMatch(all, "libfabric:tcp;ofi_rxm", null);
        assertTrue(m.contains("provider 'libfabric:tcp' is not on the class path: add io.jfabric:provider-libfabric "
                + "(or io.jfabric:jfabric-all)"), m);
        assertEquals(1, m.split("is not on the class path", -1).length - 1, "one artifact line:\n" + m);
        String filtered = noMatch(all, null, "libfabric:shm");
        assertTrue(filtered.contains("add io.jfabric:provider-libfabric"), filtered);
    }

    @Test
    void namesJfabricDoesNotHaveStayUnknown() {
        String m = noMatch(withoutTcp, "nosuch", null);
        assertTrue(m.contains("names no known provider: nosuch (known: ofi_rxm, shm)"), m);
        assertFalse(m.contains("is not on the class path"), m);
        assertNull(ProviderNames.artifact("nosuch"));
        assertEquals("provider-rxm", ProviderNames.artifact("OFI_RXM"));
        assertEquals("provider-libfabric", ProviderNames.artifact("libfabric:verbs"));
    }

    @Test
    void openingAnInfoOfAMissingProviderSaysWhichArtifactToAdd() {
        FabricInfo i = new FabricInfo();
        i.fabricAttr.provName = "libfabric:tcp;ofi_rxm";
        FabricException e = assertThrows(FabricException.class, () -> withoutTcp.openFabric(i));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("provider 'libfabric' is not on the class path: add "
                + "io.jfabric:provider-libfabric"), e.getMessage());
    }
}
