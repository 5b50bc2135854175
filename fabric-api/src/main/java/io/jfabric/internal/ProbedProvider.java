package io.jfabric.internal;

import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.ProviderStatus;

/**
 * A provider ServiceLoader found, asked whether it can work ({@link FabricProvider#unavailableReason()}) only the
 * first time discovery needs it. A provider that the FI_PROVIDER filter or the hints' prov_name leave out is
 * never asked, so it loads no library and makes no native call: an application that excludes shm, or whose
 * JVM denies shm native access, keeps every other provider.
 */
final class ProbedProvider {
    private static final System.Logger LOG = System.getLogger("jfabric.core");

    final FabricProvider provider;
    /** Set once, by the first {@link #status()}; guarded by this. */
    private ProviderStatus status;

    ProbedProvider(FabricProvider provider) {
        this.provider = provider;
    }

    /** The provider's status, probing it on the first call. */
    synchronized ProviderStatus status() {
        if (status == null) {
            String reason;
            try {
                reason = provider.unavailableReason();
            } catch (Throwable t) {
                reason = "availability probe failed: " + Discovery.describe(t);
            }
            status = new ProviderStatus(provider.name(), provider.version(), provider.isUtility(), reason);
            if (reason != null) {
                LOG.log(System.Logger.Level.DEBUG, "provider {0} unavailable: {1}", provider.name(), reason);
            }
        }
        return status;
    }

    /** The status if a probe has happened, else null (for messages that must not probe). */
    synchronized ProviderStatus statusIfProbed() {
        return status;
    }

    boolean available() {
        return status().available();
    }

    String name() {
        return provider.name();
    }
}
