package io.jfabric.testprov;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.InfoMatcher;
import io.jfabric.spi.ProviderParameter;

import java.util.ArrayList;
import java.util.List;

/** Test-scope stand-in for libfabric 1.17's tcp: its MSG infos per interface, matched like util providers. */
public final class MimicTcpProvider implements FabricProvider {
    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public int version() {
        return MimicInfos.PROV_VERSION;
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        List<FabricInfo> templates = new ArrayList<>();
        for (var i : MimicInfos.interfaces()) {
            templates.add(MimicInfos.tcpMsg(i));
        }
        return InfoMatcher.match(templates, hints, version);
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        throw new FabricException(Errno.ENOSYS, "test-scope provider: discovery only");
    }

    @Override
    public List<ProviderParameter> parameters() {
        return List.of(new ProviderParameter("tcp", "tx_size", "size_t", "256", "define default tx context size"));
    }
}
