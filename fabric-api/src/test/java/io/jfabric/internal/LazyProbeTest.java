package io.jfabric.internal;

import io.jfabric.Caps;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Fabric;
import io.jfabric.spi.FabricProvider;
import io.jfabric.testprov.MimicRxmProvider;
import io.jfabric.testprov.MimicShmProvider;
import io.jfabric.testprov.MimicTcpProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A provider is asked whether it can work (where real providers load libraries and make native calls) only when a
 * call first needs it: never while the FI_PROVIDER filter or the hints' prov_name leave it out, once at most
 * otherwise; and a provider that is unavailable, for instance because its native access is denied, leaves the
 * others working.
 */
@Timeout(30)
class LazyProbeTest {
    /** shm that counts its probes and answers with a fixed reason (null: available). */
    static final class CountingShm implements FabricProvider {
        private final MimicShmProvider shm = new MimicShmProvider();
        private final String reason;
        int probes;

        CountingShm(String reason) {
            this.reason = reason;
        }

        @Override
        public String name() {
            return shm.name();
        }

        @Override
        public int version() {
            return shm.version();
        }

        @Override
        public String unavailableReason() {
            probes++;
            return reason;
        }

        @Override
        public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
            return shm.getInfo(version, node, service, flags, hints);
        }

        @Override
        public Fabric openFabric(FabricInfo info) {
            return shm.openFabric(info);
        }
    }

    private static Discovery discovery(CountingShm shm) {
        return new Discovery(List.of(
                new Discovery.Candidate(MimicTcpProvider.class.getName(), MimicTcpProvider::new),
                new Discovery.Candidate(MimicRxmProvider.class.getName(), MimicRxmProvider::new),
                new Discovery.Candidate("counting shm", () -> shm)));
    }

    private static FabricInfo named(String provName) {
        FabricInfo h = FabricInfo.hints();
        h.fabricAttr.provName = provName;
        return h;
    }

    @Test
    void loadingProbesNothing() {
        CountingShm shm = new CountingShm(null);
        discovery(shm);
        assertEquals(0, shm.probes);
    }

    @Test
    void aProviderTheFilterOrTheHintsLeaveOutIsNeverProbed() {
        CountingShm shm = new CountingShm(null);
        Discovery d = discovery(shm);
        assertEquals("tcp;ofi_rxm*3 tcp*3", ProviderSelectionTest.names(
                d.getInfo(Fabrics.API_VERSION, null, null, 0, null, "tcp")));
        assertEquals("tcp;ofi_rxm*3", ProviderSelectionTest.names(
                d.getInfo(Fabrics.API_VERSION, null, null, 0, named("tcp;ofi_rxm"), null)));
        assertEquals("tcp;ofi_rxm*3 tcp*3", ProviderSelectionTest.names(
                d.getInfo(Fabrics.API_VERSION, null, null, 0, null, "^shm")));
        // nor while explaining why nothing matched
        FabricInfo collective = FabricInfo.hints();
        collective.caps = Caps.COLLECTIVE;
        String m = assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.API_VERSION, null, null, 0, collective, "tcp")).getMessage();
        assertTrue(m.contains("\n  shm: excluded by the provider filter 'tcp'"), m);
        assertEquals(0, shm.probes);

        assertEquals("tcp;ofi_rxm*3 shm tcp*3", ProviderSelectionTest.names(
                d.getInfo(Fabrics.API_VERSION, null, null, 0, null, null)));
        d.getInfo(Fabrics.API_VERSION, null, null, 0, named("shm"), null);
        assertEquals(1, shm.probes, "probed once, when first asked for");
    }

    @Test
    void anUnavailableProviderLeavesTheOthersWorkingAndSaysWhy() {
        String reason = "native access is not enabled for module io.jfabric.provider.shm; "
                + "add --enable-native-access=io.jfabric.provider.shm";
        CountingShm shm = new CountingShm(reason);
        Discovery d = discovery(shm);
        assertEquals("tcp;ofi_rxm*3 tcp*3", ProviderSelectionTest.names(
                d.getInfo(Fabrics.API_VERSION, null, null, 0, null, null)));
        String m = assertThrows(FabricException.class,
                () -> d.getInfo(Fabrics.API_VERSION, null, null, 0, named("shm"), null)).getMessage();
        assertTrue(m.contains("\n  shm: unavailable: " + reason), m);
        assertTrue(d.providers().stream().anyMatch(s -> s.name().equals("shm") && reason.equals(s.unavailableReason())),
                d.providers().toString());
        assertEquals(1, shm.probes);
    }
}
