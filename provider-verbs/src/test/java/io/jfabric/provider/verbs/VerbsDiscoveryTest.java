package io.jfabric.provider.verbs;

import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.spi.ProviderStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Discovery never throws: on a kernel without RDMA devices (this project's build machines) verbs offers
 * no info and says why; where devices exist (the Soft-RoCE VM) it offers FI_EP_MSG infos for them.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class VerbsDiscoveryTest {
    private static boolean kernelHasRdmaDevices() {
        String[] devs = new File("/sys/class/infiniband").list();
        return devs != null && devs.length > 0;
    }

    @Test
    void reasonWithoutDevicesInfosWithThem() {
        VerbsProvider p = new VerbsProvider();
        String reason = p.unavailableReason();
        List<FabricInfo> infos = p.getInfo(Fabrics.API_VERSION, null, null, 0, null);
        if (kernelHasRdmaDevices()) {
            assertNull(reason, "devices exist but verbs says: " + reason);
            assertFalse(infos.isEmpty());
            for (FabricInfo i : infos) {
                assertEquals("verbs", i.providerName());
                assertNotNull(i.srcAddr);
                assertTrue(i.fabricAttr.name.contains("/"), "fabric is named by subnet: " + i.fabricAttr.name);
            }
        } else {
            assertNotNull(reason, "no RDMA device in /sys/class/infiniband, yet verbs claims to be available");
            assertTrue(reason.contains("ibv_get_device_list") || reason.contains("cannot be loaded"), reason);
            assertTrue(infos.isEmpty(), "no devices, yet infos: " + infos);
        }
    }

    @Test
    void discoveryListsVerbsWithItsReason() {
        ProviderStatus verbs = Fabrics.providers().stream().filter(s -> s.name().equals("verbs")).findFirst()
                .orElseThrow(() -> new AssertionError("ServiceLoader did not find verbs: " + Fabrics.providers()));
        assertEquals(kernelHasRdmaDevices(), verbs.available(), String.valueOf(verbs.unavailableReason()));
    }

    @Test
    void hintsForOtherEndpointTypesGetNothing() {
        FabricInfo hints = FabricInfo.hints();
        hints.epAttr.type = io.jfabric.EndpointType.RDM;
        assertTrue(new VerbsProvider().getInfo(Fabrics.API_VERSION, null, null, 0, hints).isEmpty());
    }
}
