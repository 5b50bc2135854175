package io.jfabric.provider.rxm;

import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.PassiveEndpoint;

/**
 * ofi_rxm's fabric ({@code struct rxm_fabric}): wraps the core fabric. Event queues are the core's own
 * (rxm raises no CM events to the application: RDM endpoints are connectionless).
 */
final class RxmFabric implements Fabric {
    final RxmProvider provider;
    final FabricInfo info;
    final FabricInfo coreInfo;
    final RxmParams params;
    final Fabric core;
    private int domains;

    RxmFabric(RxmProvider provider, FabricInfo info, FabricInfo coreInfo, RxmParams params) {
        this.provider = provider;
        this.info = info.copy();
        this.coreInfo = coreInfo;
        this.params = params;
        this.core = Fabrics.openFabric(coreInfo);
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    @Override
    public synchronized Domain openDomain(FabricInfo info) {
        FabricInfo c = info.providerData instanceof FabricInfo ci ? ci : coreInfo;
        RxmDomain d = new RxmDomain(this, info, c);
        domains++;
        return d;
    }

    synchronized void domainClosed() {
        domains--;
    }

    @Override
    public PassiveEndpoint openPassiveEndpoint(FabricInfo info) {
        throw new FabricException(Errno.EOPNOTSUPP, "ofi_rxm endpoints are FI_EP_RDM and connectionless; "
                + "open an endpoint with domain.openEndpoint instead of a passive endpoint");
    }

    @Override
    public EventQueue openEq(EqAttr attr) {
        return core.openEq(attr);
    }

    @Override
    public synchronized void close() {
        if (domains > 0) {
            throw new FabricException(Errno.EBUSY, "close the " + domains + " open ofi_rxm domain(s) first");
        }
        core.close();
    }
}
