package io.jfabric;

import io.jfabric.internal.Discovery;
import io.jfabric.spi.ProviderStatus;

import java.util.List;

/**
 * Entry point, mirroring {@code fi_getinfo} and {@code fi_fabric}. Providers are found with
 * {@link java.util.ServiceLoader} ({@link io.jfabric.spi.FabricProvider}); the FI_PROVIDER
 * environment variable (or the {@code jfabric.provider} system property) filters them as in libfabric.
 */
public final class Fabrics {
    /** The libfabric API version jfabric mirrors. */
    public static final int API_VERSION = version(1, 17);
    /** {@code FI_ADDR_UNSPEC}: no address; as a receive's source, any sender. */
    public static final long ADDR_UNSPEC = -1L;
    /** {@code FI_ADDR_NOTAVAIL}: an address that could not be inserted, or a source that is not known. */
    public static final long ADDR_NOTAVAIL = -1L;
    /** {@code FI_KEY_NOTAVAIL}: no MR key. */
    public static final long KEY_NOTAVAIL = -1L;
    /** FI_SHARED_CONTEXT (SIZE_MAX) for tx/rx_ctx_cnt. */
    public static final long SHARED_CONTEXT = -1L;

    /** fi_getinfo flag: node/service name the local (source) address. */
    public static final long SOURCE = 1L << 57;
    /** fi_getinfo flag: return one info per provider with only the provider name and version. */
    public static final long PROV_ATTR_ONLY = 1L << 54;
    /** fi_getinfo flag: node is a numeric address; do no name resolution. */
    public static final long NUMERICHOST = 1L << 55;
    /** fi_av_insert flag: report per-address errors in an int[] context. */
    public static final long SYNC_ERR = 1L << 58;

    private Fabrics() {
    }

    /**
     * FI_VERSION(major, minor).
     *
     * @param major the major version
     * @param minor the minor version
     * @return the packed version
     */
    public static int version(int major, int minor) {
        return (major << 16) | minor;
    }

    /**
     * FI_MAJOR.
     *
     * @param version a packed version
     * @return its major part
     */
    public static int major(int version) {
        return version >>> 16;
    }

    /**
     * FI_MINOR.
     *
     * @param version a packed version
     * @return its minor part
     */
    public static int minor(int version) {
        return version & 0xFFFF;
    }

    /**
     * {@code fi_getinfo}: every way the installed providers can meet {@code hints}, in libfabric's provider
     * order; within a provider, routable addresses come before link-local ones unless the hints name an
     * address.
     *
     * @param version the API version, FI_VERSION(major, minor); {@link #API_VERSION} for this one
     * @param node a host name or numeric address, or null
     * @param service a port number or service name, or null
     * @param flags 0, {@link #SOURCE}, {@link #NUMERICHOST}, {@link #PROV_ATTR_ONLY}
     * @param hints the hints, or null for no constraints
     * @return the infos, never empty
     * @throws FabricException ENODATA when nothing matches; its message says, provider by provider, why each
     *     declined. EINVAL for malformed hints
     */
    public static List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        return Discovery.instance().getInfo(version, node, service, flags, hints);
    }

    /**
     * {@code fi_getinfo(FI_VERSION(1,17), NULL, NULL, 0, hints)}.
     *
     * @param hints the hints, or null
     * @return the infos, never empty
     * @throws FabricException ENODATA when nothing matches
     */
    public static List<FabricInfo> getInfo(FabricInfo hints) {
        return getInfo(API_VERSION, null, null, 0, hints);
    }

    /**
     * {@code fi_fabric}: opens the fabric an info names, through the provider that produced it.
     *
     * @param info an info from {@link #getInfo}
     * @return the fabric
     * @throws FabricException EINVAL if the info names no provider, ENODATA if no available provider opens it,
     *     or the provider's own error
     */
    public static Fabric openFabric(FabricInfo info) {
        return Discovery.instance().openFabric(info);
    }

    /**
     * Every provider ServiceLoader found, available or not.
     *
     * @return each with its version and, when unavailable, the reason
     */
    public static List<ProviderStatus> providers() {
        return Discovery.instance().providers();
    }
}
