package io.jfabric.conformance;

import io.jfabric.Caps;
import io.jfabric.MrMode;
import org.junit.jupiter.api.Assumptions;

/**
 * Capability gates. A case that lacks what a test needs is reported "not run: reason" through a JUnit
 * assumption, never silently passed.
 */
public final class Gate {
    private Gate() {
    }

    public static void require(boolean condition, FabricCase c, String reason) {
        Assumptions.assumeTrue(condition, () -> "not run: " + c.id() + " " + reason);
    }

    public static void msgEndpoint(FabricCase c) {
        require(c.isMsg(), c, "is not a connection-oriented (FI_EP_MSG) endpoint");
    }

    public static void connectionless(FabricCase c) {
        require(c.isConnectionless(), c, "is not a connectionless (FI_EP_RDM/FI_EP_DGRAM) endpoint");
    }

    public static void reliable(FabricCase c) {
        require(c.isMsg() || c.epType() == io.jfabric.EndpointType.RDM, c,
                "is unreliable (FI_EP_DGRAM); the test needs every message delivered");
    }

    public static void messaging(FabricCase c) {
        require(c.hasCaps(Caps.MSG), c, "lacks FI_MSG");
        reliable(c);
    }

    public static void rma(FabricCase c) {
        require(c.hasCaps(Caps.RMA), c, "lacks FI_RMA");
        require((c.info().domainAttr.mrMode & MrMode.RAW) == 0, c,
                "uses FI_MR_RAW keys, which the suite does not exchange");
    }
}
