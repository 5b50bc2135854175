package io.jfabric.util;

import io.jfabric.AddressVector;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;

/**
 * What the Java providers' domains share, as libfabric's {@code util_domain}: the info it was opened with,
 * its fabric, and the reference count that refuses {@code fi_close} with EBUSY while endpoints, queues,
 * counters or memory regions opened from it are still open (children {@link #acquire()} it and
 * {@link #release()} it). Using a closed domain on the control path throws EBADF. A provider whose regions
 * live in an {@link MrMap} makes the map with {@link #newMrMap}, so each open region holds the domain too.
 *
 * @param <F> the provider's fabric, so the provider reaches its own fabric's state without a cast
 */
public abstract class UtilDomain<F extends Fabric> extends UtilFabricObject implements Domain {
    private final F fabric;
    private final FabricInfo info;

    /**
     * @param what   how messages name the domain ("tcp domain")
     * @param info   the domain's info; the domain keeps a copy, so the caller's later edits do not reach it
     */
    protected UtilDomain(String what, F fabric, FabricInfo info) {
        super(what);
        this.fabric = fabric;
        this.info = info.copy();
    }

    @Override
    public final FabricInfo info() {
        return info;
    }

    @Override
    public final F fabric() {
        return fabric;
    }

    /** The domain's endpoints take no fid context (rxm, shm) unless the provider overrides the two-argument form. */
    @Override
    public Endpoint openEndpoint(FabricInfo info) {
        return openEndpoint(info, null);
    }

    @Override
    public abstract Endpoint openEndpoint(FabricInfo info, Object context);

    /**
     * The info an endpoint opens with: {@code asked}, or the domain's own when the application passes none.
     * Throws EBADF when the domain is closed.
     */
    protected final FabricInfo endpointInfo(FabricInfo asked) {
        checkOpen("open an endpoint on");
        return asked == null ? info : asked;
    }

    /**
     * {@code fi_av_open} on a domain whose endpoints are FI_EP_MSG only (tcp, verbs): they connect instead, so
     * ENOSYS, naming the layered provider that offers FI_EP_RDM.
     */
    protected final AddressVector refuseAv() {
        String prov = info.providerName();
        throw new FabricException(Errno.ENOSYS, prov + " offers FI_EP_MSG endpoints only, which need no address"
                + " vector; use \"" + prov + ";ofi_rxm\" for FI_EP_RDM");
    }

    /** The domain's mr_mode bits (0 when the info has no domain attributes). */
    protected final int mrMode() {
        return info.domainAttr == null ? 0 : info.domainAttr.mrMode;
    }

    /**
     * The open region of {@code key}, for a utility provider that applies peers' operations to this core
     * domain's memory itself (ofi_rxm's atomics); null when there is none or the domain keeps no such table.
     * Allocation-free.
     */
    public UtilMemoryRegion region(long key) {
        return null;
    }

    /** An MR map with this domain's mr_mode whose regions each hold the domain until they are closed. */
    protected final MrMap newMrMap(int keySizeBytes) {
        return new MrMap(mrMode(), keySizeBytes, this);
    }

    /**
     * Refuses with EINVAL an info that asks for an endpoint type other than {@code offered} (FI_EP_UNSPEC and
     * no endpoint attributes mean any); {@code refusal} says what to use instead.
     */
    public static void requireEndpointType(FabricInfo info, EndpointType offered, String refusal) {
        if (info != null && info.epAttr != null && info.epAttr.type != offered
                && info.epAttr.type != EndpointType.UNSPEC) {
            throw new FabricException(Errno.EINVAL, refusal + " (asked for " + info.epAttr.type.cName() + ")");
        }
    }
}
