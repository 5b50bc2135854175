package io.jfabric.cli;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.spi.FabricProvider;

import java.util.List;

/** Test-scope provider that is unavailable on this machine ("efa" with no device), for -l --verbose. */
public final class TestUnavailableProvider implements FabricProvider {
    static final String REASON = "no EFA device (CLI test stand-in)";

    @Override
    public String name() {
        return "efa";
    }

    @Override
    public int version() {
        return Fabrics.version(117, 0);
    }

    @Override
    public String unavailableReason() {
        return REASON;
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        throw new AssertionError("never asked when unavailable");
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        throw new FabricException(Errno.ENODEV, REASON);
    }
}
