package io.jfabric.provider.rxm;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.spi.ProviderParameter;
import io.jfabric.spi.UtilityProvider;

import java.util.List;

/** Placeholder until the layered provider lands. */
public final class RxmProvider implements UtilityProvider {
    @Override
    public String name() {
        return "ofi_rxm";
    }

    @Override
    public int version() {
        return io.jfabric.Fabrics.version(1, 17);
    }

    @Override
    public FabricInfo coreHints(FabricInfo userHints) {
        return null;
    }

    @Override
    public FabricInfo layer(FabricInfo coreInfo, FabricInfo userHints) {
        return null;
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        throw new FabricException(Errno.ENOSYS, "ofi_rxm is not complete yet");
    }

    @Override
    public List<ProviderParameter> parameters() {
        return RxmParams.ALL;
    }
}
