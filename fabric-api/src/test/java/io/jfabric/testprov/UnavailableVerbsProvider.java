package io.jfabric.testprov;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.spi.FabricProvider;

import java.util.List;

/** Test-scope provider that reports itself unavailable, as verbs does on a machine without RDMA devices. */
public final class UnavailableVerbsProvider implements FabricProvider {
    public static final String REASON = "no RDMA device found (test stand-in)";

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public int version() {
        return MimicInfos.PROV_VERSION;
    }

    @Override
    public String unavailableReason() {
        return REASON;
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        throw new AssertionError("discovery must not ask an unavailable provider for infos");
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        throw new FabricException(Errno.ENODEV, "unavailable");
    }
}
