package io.jfabric.provider.verbs;

import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;
import io.jfabric.util.UtilFabricObject;

/** Mirrors libfabric's verbs fabric: one IP subnet; its domains are the RDMA devices on it. */
final class VerbsFabric extends UtilFabricObject implements Fabric {
    private final FabricInfo info;

    VerbsFabric(FabricInfo info) {
        super("verbs fabric");
        this.info = info.copy();
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    static VerbsDevice deviceOf(FabricInfo info) {
        if (info == null || !(info.providerData instanceof VerbsDevice d)) {
            throw new FabricException(Errno.EINVAL, "the info was not made by the verbs provider; "
                    + "pass an info from Fabrics.getInfo");
        }
        return d;
    }

    @Override
    public Domain openDomain(FabricInfo info) {
        checkOpen("open a domain on");
        return new VerbsDomain(this, info, deviceOf(info));
    }

    @Override
    public PassiveEndpoint openPassiveEndpoint(FabricInfo info) {
        checkOpen("open a passive endpoint on");
        return new VerbsPassiveEndpoint(this, info, deviceOf(info));
    }

    @Override
    public EventQueue openEq(EqAttr attr) {
        checkOpen("open an EQ on");
        return new VerbsEq(this, attr);
    }

    @Override
    protected void doClose() {
        // nothing native: devices belong to librdmacm's process-wide list
    }
}
