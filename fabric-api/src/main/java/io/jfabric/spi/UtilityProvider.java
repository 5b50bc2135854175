package io.jfabric.spi;

import io.jfabric.FabricInfo;

/**
 * A utility provider (libfabric's {@code ofi_*}), layered over core providers: discovery asks every
 * eligible core for {@link #coreHints} and offers {@link #layer} of each result, named "core;utility".
 * It never layers over shm or another utility unless the hints name that core.
 */
public interface UtilityProvider extends FabricProvider {
    @Override
    default boolean isUtility() {
        return true;
    }

    /**
     * Hints to ask core providers with, derived from the application's hints for the layered info.
     *
     * @param userHints the application's hints, or null
     * @return the hints for the cores
     */
    FabricInfo coreHints(FabricInfo userHints);

    /**
     * The layered info over one core info: provName "core;utility", {@code providerData} keeping what the
     * utility needs to open the core.
     *
     * @param coreInfo an info a core provider returned for {@link #coreHints}
     * @param userHints the application's hints, or null
     * @return the layered info, or null when it cannot layer over this core
     */
    FabricInfo layer(FabricInfo coreInfo, FabricInfo userHints);

    @Override
    default java.util.List<FabricInfo> getInfo(int version, String node, String service, long flags,
                                               FabricInfo hints) {
        return java.util.List.of();
    }
}
