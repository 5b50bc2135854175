package io.jfabric;

import java.lang.foreign.MemorySegment;

/** Mirrors {@code struct fid_domain} ({@code fi_domain}): one access domain (a NIC, a port, a host). */
public interface Domain extends FabricObject {
    FabricInfo info();

    Fabric fabric();

    /** {@code fi_endpoint}; for FI_EP_MSG pass the info of a CONNREQ to make the accepting side. */
    Endpoint openEndpoint(FabricInfo info);

    /** {@code fi_endpoint} with a context returned in the endpoint's events. */
    default Endpoint openEndpoint(FabricInfo info, Object context) {
        return openEndpoint(info);
    }

    /** {@code fi_av_open}. */
    AddressVector openAv(AvAttr attr);

    /** {@code fi_cq_open}. */
    CompletionQueue openCq(CqAttr attr);

    /** {@code fi_cntr_open}. */
    Counter openCounter(CounterAttr attr);

    /**
     * {@code fi_mr_reg}. {@code requestedKey} is used unless the mr_mode has FI_MR_PROV_KEY. Native
     * segments are registered in place; a provider that needs native memory rejects a heap segment
     * with EINVAL.
     */
    MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey, long flags);

    /** Short form: offset 0, no flags. */
    default MemoryRegion registerMemory(MemorySegment segment, long access, long requestedKey) {
        return registerMemory(segment, access, 0, requestedKey, 0);
    }
}
