package io.jfabric.internal;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.ProviderStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds providers with ServiceLoader once and answers getInfo / openFabric for {@link io.jfabric.Fabrics}. */
public final class Discovery {
    private static volatile Discovery instance;

    private final List<FabricProvider> usable = new ArrayList<>();
    private final List<ProviderStatus> statuses = new ArrayList<>();

    private Discovery() {
        for (var handle : ServiceLoader.load(FabricProvider.class).stream().toList()) {
            FabricProvider p;
            try {
                p = handle.get();
            } catch (Throwable t) {
                statuses.add(new ProviderStatus(handle.type().getName(), 0, false, "failed to load: " + t));
                continue;
            }
            String reason;
            try {
                reason = p.unavailableReason();
            } catch (Throwable t) {
                reason = "probe failed: " + t;
            }
            statuses.add(new ProviderStatus(p.name(), p.version(), p.isUtility(), reason));
            if (reason == null) {
                usable.add(p);
            }
        }
    }

    public static Discovery instance() {
        Discovery d = instance;
        if (d == null) {
            synchronized (Discovery.class) {
                d = instance;
                if (d == null) {
                    d = new Discovery();
                    instance = d;
                }
            }
        }
        return d;
    }

    public List<ProviderStatus> providers() {
        return List.copyOf(statuses);
    }

    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        List<FabricInfo> out = new ArrayList<>();
        for (FabricProvider p : usable) {
            if (!p.isUtility()) {
                out.addAll(p.getInfo(version, node, service, flags, hints));
            }
        }
        if (out.isEmpty()) {
            throw new FabricException(Errno.ENODATA, "no provider matched the hints");
        }
        return out;
    }

    public Fabric openFabric(FabricInfo info) {
        String name = info.providerName();
        for (FabricProvider p : usable) {
            if (p.name().equals(name)) {
                return p.openFabric(info);
            }
        }
        throw new FabricException(Errno.ENODATA, "no provider named '" + name + "' is available");
    }
}
