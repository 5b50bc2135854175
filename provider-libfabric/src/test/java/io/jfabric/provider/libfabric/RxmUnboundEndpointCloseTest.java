package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * fi_endpoint(3) lets any endpoint be closed, bound or not; 1.17's rxm segfaults closing one that has no AV
 * (src/test/c/close_unbound_ep.c). Through the bridge such an endpoint closes, and so does its domain after it; a
 * crash here takes the test JVM down, which fails the run.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RxmUnboundEndpointCloseTest {
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anRxmEndpointWithNoAvClosesAndItsDomainAfterIt(boolean boundToCqs) {
        List<FabricInfo> infos = new LibfabricProvider().getInfo(Fabrics.API_VERSION, null, null, 0,
                Hints.create().provider("libfabric:tcp;ofi_rxm").epType(EndpointType.RDM).build());
        assertFalse(infos.isEmpty(), "libfabric:tcp;ofi_rxm is installed here");
        FabricInfo info = infos.getFirst();
        Fabric f = new LibfabricProvider().openFabric(info);
        Domain d = f.openDomain(info);
        CompletionQueue cq = d.openCq(CqAttr.of(CqFormat.TAGGED, 16));
        Endpoint ep = d.openEndpoint(info);
        if (boundToCqs) {
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        }
        ep.close();
        assertTrue(((LibfabricEndpoint) ep).isClosed(), "the endpoint closed");
        cq.close();
        d.close(); // refused (FI_EBUSY) if the AV bound for rxm's close were left open
        f.close();
    }
}
