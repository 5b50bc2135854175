package io.jfabric.testprov;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Mode;
import io.jfabric.spi.UtilityProvider;

/** Test-scope stand-in for ofi_rxm: RDM over any MSG core, with 1.17's attributes over tcp. */
public final class MimicRxmProvider implements UtilityProvider {
    @Override
    public String name() {
        return "ofi_rxm";
    }

    @Override
    public int version() {
        return MimicInfos.PROV_VERSION;
    }

    @Override
    public FabricInfo coreHints(FabricInfo user) {
        FabricInfo h = FabricInfo.hints();
        h.epAttr.type = EndpointType.MSG;
        h.caps = Caps.MSG | (user != null && (user.caps & Caps.RMA) != 0 ? Caps.RMA : 0);
        h.mode = Mode.RX_CQ_DATA | Mode.CONTEXT;
        h.domainAttr.mrMode = user != null && user.domainAttr != null ? user.domainAttr.mrMode : 0;
        return h;
    }

    @Override
    public FabricInfo layer(FabricInfo coreInfo, FabricInfo user) {
        if (coreInfo.epAttr.type != EndpointType.MSG) {
            return null;
        }
        FabricInfo l = MimicInfos.rxmOver(coreInfo);
        if (user != null && (user.mode & Mode.BUFFERED_RECV) != 0) {
            l.mode |= Mode.BUFFERED_RECV;
        }
        return l;
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        throw new FabricException(Errno.ENOSYS, "test-scope provider: discovery only");
    }
}
