package io.jfabric.provider.verbs;

import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.spi.FabricProvider;

import java.util.List;

/** Placeholder while the bindings land; replaced by the real provider. */
public final class VerbsProvider implements FabricProvider {
    public String name() { return "verbs"; }
    public int version() { return 1 << 16; }
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) { return List.of(); }
    public Fabric openFabric(FabricInfo info) { throw new UnsupportedOperationException(); }
}
