package io.jfabric.provider.verbs;

import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.NativeAccess;

import java.lang.foreign.MemorySegment;

import java.util.List;

/**
 * The {@code verbs} provider: libfabric's verbs (fi_verbs(7)) for FI_EP_MSG, over libibverbs and
 * librdmacm through FFM. Discovery never throws: without the libraries or an RDMA device it offers no
 * info and {@link #unavailableReason()} says why. Differences from libfabric: no FI_EP_DGRAM, no XRC,
 * no atomics. Hints with no threading level get FI_THREAD_SAFE, as libfabric's verbs; FI_THREAD_DOMAIN takes no
 * lock on the data path.
 */
public final class VerbsProvider implements FabricProvider {
    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public int version() {
        return VerbsInfos.PROVIDER_VERSION;
    }

    @Override
    public String unavailableReason() {
        String denied = nativeAccessDenied();
        return denied != null ? denied : DeviceScan.result().unavailableReason();
    }

    /** Asked before the device scan, whose library loading and downcalls a denied module may not make. */
    private static String nativeAccessDenied() {
        return NativeAccess.deniedReason(VerbsProvider.class.getModule(), () -> MemorySegment.NULL.reinterpret(0));
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        if (nativeAccessDenied() != null) {
            return List.of();
        }
        DeviceScan.Result r = DeviceScan.result();
        if (r.unavailableReason() != null) {
            return List.of();
        }
        return VerbsInfos.getInfo(r.devices(), version, node, service, flags, hints);
    }

    @Override
    public List<io.jfabric.spi.ProviderParameter> parameters() {
        java.util.List<io.jfabric.spi.ProviderParameter> all = new java.util.ArrayList<>(VerbsParams.PARAMS.parameters());
        all.addAll(VerbsParams.MR_CACHE.parameters());
        return all;
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        VerbsFabric.deviceOf(info);
        return new VerbsFabric(info);
    }
}
