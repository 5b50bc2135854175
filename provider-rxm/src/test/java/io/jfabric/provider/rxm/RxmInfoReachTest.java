package io.jfabric.provider.rxm;

import io.jfabric.Caps;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.util.Sockaddr;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * tcp;ofi_rxm reports its core's reach as libfabric's rxm does (rxm_info_to_rxm's ofi_pick_core_flags): over
 * tcp's loopback infos FI_LOCAL_COMM alone, elsewhere FI_LOCAL_COMM and FI_REMOTE_COMM, in the caps and the
 * domain's caps, when the hints ask no caps (fi_info's listing); hints that ask caps get rxm's own.
 */
class RxmInfoReachTest {
    private static final long COMM = Caps.LOCAL_COMM | Caps.REMOTE_COMM;

    private static List<FabricInfo> rxmInfos(long caps) {
        FabricInfo hints = FabricInfo.hints();
        hints.fabricAttr.provName = "tcp;ofi_rxm";
        hints.caps = caps;
        return Fabrics.getInfo(Fabrics.API_VERSION, null, null, 0, hints);
    }

    private static boolean loopback(FabricInfo i) {
        return Sockaddr.toInet(i.srcAddr).getAddress().isLoopbackAddress();
    }

    @Test
    void withoutCapsInTheHintsLoopbackInfosAreForLocalCommunicationOnly() {
        List<FabricInfo> infos = rxmInfos(0);
        assertTrue(infos.stream().anyMatch(RxmInfoReachTest::loopback), "no loopback info: " + infos);
        for (FabricInfo i : infos) {
            long expected = loopback(i) ? Caps.LOCAL_COMM : COMM;
            assertEquals(expected, i.caps & COMM, i.fabricAttr.name);
            assertEquals(expected, i.domainAttr.caps & COMM, i.fabricAttr.name);
            assertTrue((i.caps & (Caps.MSG | Caps.TAGGED | Caps.RMA)) == (Caps.MSG | Caps.TAGGED | Caps.RMA),
                    i.fabricAttr.name + " keeps rxm's caps");
        }
    }

    @Test
    void hintsAskingRemoteCommunicationStillReachLoopbackThroughRxm() {
        // rxm's own caps hold both, and the core is asked for messages and RMA only, so loopback stays listed
        List<FabricInfo> infos = rxmInfos(Caps.MSG | Caps.REMOTE_COMM);
        assertTrue(infos.stream().anyMatch(RxmInfoReachTest::loopback), "no loopback info: " + infos);
        for (FabricInfo i : infos) {
            assertFalse((i.caps & Caps.TAGGED) != 0, "a caps hint narrows rxm's caps to it: " + i.fabricAttr.name);
        }
    }

    @Test
    void aWildcardSourceGivesRxmDialableSourcesOnly() {
        // tcp's first info for a wildcard source keeps the wildcard (libfabric's); rxm names an endpoint by its
        // source, so it layers over the per-interface infos only, each with the asked port
        FabricInfo hints = FabricInfo.hints();
        hints.fabricAttr.provName = "tcp;ofi_rxm";
        List<FabricInfo> infos = Fabrics.getInfo(Fabrics.API_VERSION, null, "7002", Fabrics.SOURCE, hints);
        assertTrue(infos.stream().anyMatch(RxmInfoReachTest::loopback), "no loopback info: " + infos);
        for (FabricInfo i : infos) {
            assertFalse(Sockaddr.toInet(i.srcAddr).getAddress().isAnyLocalAddress(), i.fabricAttr.name);
            assertEquals(7002, Sockaddr.toInet(i.srcAddr).getPort(), i.fabricAttr.name);
        }
    }
}
