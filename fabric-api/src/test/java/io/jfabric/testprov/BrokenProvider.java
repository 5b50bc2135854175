package io.jfabric.testprov;

import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.spi.FabricProvider;

import java.util.List;

/** Test-scope provider whose constructor fails, as one with a missing class or library would. */
public final class BrokenProvider implements FabricProvider {
    public static final String MESSAGE = "native library libbroken.so not found (test stand-in)";

    public BrokenProvider() {
        throw new UnsatisfiedLinkError(MESSAGE);
    }

    @Override
    public String name() {
        return "broken";
    }

    @Override
    public int version() {
        return 0;
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        return List.of();
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        return null;
    }
}
