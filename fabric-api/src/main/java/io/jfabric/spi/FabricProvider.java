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
    /**
     * The provider name, as libfabric spells it.
     *
     * @return "tcp", "shm", "verbs", "ofi_rxm" or "libfabric"
     */
    String name();

    /**
     * The provider version.
     *
     * @return FI_VERSION(major, minor)
     */
    int version();

    /**
     * Whether this is a utility provider (name starting with "ofi_"), which implements {@link UtilityProvider}.
     *
     * @return true for a utility provider
     */
    default boolean isUtility() {
        return false;
    }

    /**
     * Why this provider cannot work on this machine (missing library, no device). Discovery calls it once and
     * leaves the provider out, keeping the reason for {@code jfabric info -l --verbose}.
     *
     * @return the reason, or null when it can work
     */
    default String unavailableReason() {
        return null;
    }

    /**
     * The infos this provider offers, already matched against {@code hints} and altered by them (most providers
     * pass their templates through {@link InfoMatcher#match}). It must not throw for a mismatch. Called with
     * null hints it returns every info it offers, which discovery uses to explain, through {@link
     * InfoMatcher#explain}, why nothing matched.
     *
     * @param version the API version the application asked for, FI_VERSION(major, minor)
     * @param node a host name or address, or null
     * @param service a port or service name, or null
     * @param flags fi_getinfo flags ({@link io.jfabric.Fabrics#SOURCE}, {@link io.jfabric.Fabrics#NUMERICHOST}
     *     ...)
     * @param hints the hints, or null
     * @return the matching infos; empty when none fits
     */
    List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints);

    /**
     * {@code fi_fabric} for one of this provider's infos.
     *
     * @param info an info this provider returned
     * @return the fabric
     * @throws io.jfabric.FabricException when the fabric cannot be opened (ENODEV, ENOMEM ...)
     */
    Fabric openFabric(FabricInfo info);

    /**
     * The tunables, for {@code jfabric info --env}.
     *
     * @return the parameters; empty when there are none
     */
    default List<ProviderParameter> parameters() {
        return List.of();
    }
}
