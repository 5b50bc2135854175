package io.jfabric.bench;

import io.jfabric.Caps;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.WaitObj;

/**
 * How the bridge benchmarks (BridgeCallBench, ShmLadder) open libfabric:shm: with the hints and CQ attributes
 * fi_pingpong uses at 64 B, so that they make the calls C makes in bench/floors.
 */
public final class NativeShm {
    private NativeShm() {}

    /** The first info of libfabric:shm for an RDM endpoint with FI_MSG. */
    public static FabricInfo info() {
        FabricInfo hints = FabricInfo.hints();
        hints.epAttr.type = EndpointType.RDM;
        hints.caps = Caps.MSG;
        hints.mode = Mode.CONTEXT | Mode.CONTEXT2;
        hints.domainAttr.mrMode = MrMode.LOCAL | MrMode.ALLOCATED | MrMode.PROV_KEY | MrMode.VIRT_ADDR;
        hints.fabricAttr.provName = "libfabric:shm";
        return Fabrics.getInfo(hints).getFirst();
    }

    /** A CONTEXT-format CQ of {@code size} entries without a wait object: busy-polled. */
    public static CqAttr cqAttr(long size) {
        CqAttr a = CqAttr.of(CqFormat.CONTEXT, size);
        a.waitObj = WaitObj.NONE;
        return a;
    }
}
