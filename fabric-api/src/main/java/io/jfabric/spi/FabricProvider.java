package io.jfabric.spi;

import io.jfabric.Fabric;
import io.jfabric.FabricInfo;

import java.util.List;

/**
 * A provider, found with {@link java.util.ServiceLoader}: libfabric's {@code struct fi_provider}.
 * Implementations need a public no-argument constructor that does no I/O and never throws; native
 * probing belongs in {@link #unavailableReason()}.
 */
public interface FabricProvider {
    /** libfabric-style name: "tcp", "shm", "verbs", "ofi_rxm", "libfabric". */
    String name();

    /** Provider version, FI_VERSION(major, minor). */
    int version();

    /** True for utility providers (name starts with "ofi_"); they implement {@link UtilityProvider}. */
    default boolean isUtility() {
        return false;
    }

    /**
     * Why this provider cannot work on this machine (missing library, no device), or null when it can.
     * Discovery calls it once and leaves the provider out, keeping the reason for {@code jfabric info -l --verbose}.
     */
    default String unavailableReason() {
        return null;
    }

    /**
     * The infos this provider offers, already matched against {@code hints} and altered by them (most
     * providers pass their templates through {@link InfoMatcher#match}); an empty list when none fits.
     * It must not throw for a mismatch. Called with null hints it returns every info it offers, which
     * discovery uses to explain, through {@link InfoMatcher#explain}, why nothing matched.
     */
    List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints);

    /** {@code fi_fabric} for one of this provider's infos. */
    Fabric openFabric(FabricInfo info);

    /** Tunables, for {@code jfabric info --env}. */
    default List<ProviderParameter> parameters() {
        return List.of();
    }
}
