package io.jfabric.testprov;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.spi.FabricProvider;

import java.util.List;

/** Test-scope provider whose getInfo throws: discovery must carry on without it and say why. */
public final class FailingUdpProvider implements FabricProvider {
    public static final String MESSAGE = "socket table exhausted (test stand-in)";

    @Override
    public String name() {
        return "udp";
    }

    @Override
    public int version() {
        return MimicInfos.PROV_VERSION;
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        throw new IllegalStateException(MESSAGE);
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        throw new FabricException(Errno.ENOSYS, "test-scope provider: discovery only");
    }
}
