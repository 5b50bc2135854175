package io.jfabric;

import io.jfabric.spi.RegistrationChecks;

import java.lang.foreign.MemorySegment;

/** Mirrors {@code struct fid_domain} ({@code fi_domain}): one access domain (a NIC, a port, a host). */
public interface Domain extends FabricObject {
    /**
     * The info this domain was opened from.
     *
     * @return the info (domain_attr as granted)
     */
    FabricInfo info();

    /**
     * The fabric this domain belongs to.
     *
     * @return the parent fabric
     */
    Fabric fabric();

    /**
     * {@code fi_endpoint}. For FI_EP_MSG, pass the info of a CONNREQ event to open the accepting side.
     *
     * @param info an info of this domain, or a CONNREQ's info
     * @return the endpoint, not yet enabled
     * @throws FabricException EINVAL if the info does not belong to this domain or provider, ENOMEM when out of
     *     resources
     */
    Endpoint openEndpoint(FabricInfo info);

    /**
     * {@code fi_endpoint} with a context returned in the endpoint's events.
     *
     * @param info as in {@link #openEndpoint(FabricInfo)}
     * @param context the fid context reported in EQ entries about this endpoint
     * @return the endpoint, not yet enabled
     * @throws FabricException as {@link #openEndpoint(FabricInfo)}
     */
    default Endpoint openEndpoint(FabricInfo info, Object context) {
        return openEndpoint(info);
    }

    /**
     * {@code fi_av_open}.
     *
     * @param attr type, expected count and flags
     * @return the address vector
     * @throws FabricException EINVAL for an AV type or flag the domain does not offer
     */
    AddressVector openAv(AvAttr attr);

    /**
     * {@code fi_cq_open}.
     *
     * @param attr format, size in entries and wait object
     * @return the completion queue
     * @throws FabricException EINVAL for an unsupported format or wait object, ENOSYS for a blocking wait the
     *     provider lacks
     */
    CompletionQueue openCq(CqAttr attr);

    /**
     * {@code fi_cntr_open}.
     *
     * @param attr wait object and flags
     * @return the counter
     * @throws FabricException ENOSYS when the provider has no counters, EINVAL for an unsupported attribute
     */
    Counter openCounter(CounterAttr attr);

    /**
     * {@code fi_mr_reg}. {@code requestedKey} is used unless the mr_mode has FI_MR_PROV_KEY. Native segments
     * are registered in place; a provider whose info has {@code domain_attr.mrHeapSegments} false rejects a heap
     * segment with EINVAL.
     *
     * @param segment the memory; its byteSize() is the length in bytes
     * @param access Access bits (SEND, RECV, READ, WRITE, REMOTE_READ, REMOTE_WRITE)
     * @param offset the offset (bytes) peers use for the region's first byte when the mr_mode has no
     *     FI_MR_VIRT_ADDR
     * @param requestedKey the key peers use, unless FI_MR_PROV_KEY
     * @param flags 0, or FI_RMA_EVENT to count remote accesses
     * @return the region, also the {@code desc} of data-path calls
     * @throws FabricException ENOKEY when the requested key is in use, EKEYREJECTED for a key wider than
     *     mr_key_size, EINVAL for a heap segment where {@code domain_attr.mrHeapSegments} is false
     */
    MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey, long flags);

    /**
     * Short form of {@code fi_mr_reg}: offset 0, no flags.
     *
     * @param segment the memory
     * @param access Access bits
     * @param requestedKey the key peers use, unless FI_MR_PROV_KEY
     * @return the region
     * @throws FabricException as the long form
     */
    default MemoryRegion registerMemory(MemorySegment segment, long access, long requestedKey) {
        return registerMemory(segment, access, 0, requestedKey, 0);
    }

    /**
     * {@code fi_mr_regattr}: registers the first {@code attr.iovCount} segments of {@code attr.iov} as one region
     * that peers address as their concatenation (see {@link MrAttr}). The default serves a single segment through
     * {@link #registerMemory(MemorySegment, long, long, long, long)} and refuses more; providers with an
     * mr_iov_limit above 1 override it.
     *
     * @param attr the segments, access, offset, requested key and context
     * @param flags 0, or FI_RMA_EVENT to count remote accesses
     * @return the region; its {@link MemoryRegion#context()} is {@code attr.context} where the provider keeps it
     * @throws FabricException EINVAL for a bad iov, more segments than the domain's mr_iov_limit or a heap segment
     *     where {@code domain_attr.mrHeapSegments} is false; ENOSYS for an iface other than FI_HMEM_SYSTEM; as
     *     {@link #registerMemory(MemorySegment, long, long, long, long)} for keys
     */
    default MemoryRegion registerMemory(MrAttr attr, long flags) {
        RegistrationChecks.checkAttr(info().providerName(), attr, 1);
        return registerMemory(attr.iov[0], attr.access, attr.offset, attr.requestedKey, flags);
    }

    /**
     * {@code fi_mr_regv}: {@link #registerMemory(MrAttr, long)} without a context.
     *
     * @param iov the segments, in the order peers address them
     * @param count how many of {@code iov} to register (1 to the domain's mr_iov_limit)
     * @param access Access bits
     * @param offset the remote offset (bytes) of the region's first byte without FI_MR_VIRT_ADDR
     * @param requestedKey the key peers use, unless FI_MR_PROV_KEY
     * @param flags 0, or FI_RMA_EVENT
     * @return the region
     * @throws FabricException as {@link #registerMemory(MrAttr, long)}
     */
    default MemoryRegion registerMemory(MemorySegment[] iov, int count, long access, long offset, long requestedKey,
                                        long flags) {
        MrAttr attr = new MrAttr(access, requestedKey, iov);
        attr.iovCount = count;
        attr.offset = offset;
        return registerMemory(attr, flags);
    }

    /**
     * {@code fi_poll_open}: a poll set over completion queues and counters, which may come from any Java
     * provider.
     *
     * @return the poll set
     * @throws FabricException ENOSYS without provider-util on the path
     */
    default PollSet openPoll() {
        return io.jfabric.internal.Waits.support().openPoll();
    }

    /**
     * {@code fi_srx_context}: a receive context that endpoints of this domain share (see {@link SharedRxContext}).
     * Endpoints bind it with {@link Endpoint#bind(SharedRxContext)}; their infos' {@code ep_attr.rx_ctx_cnt} is
     * FI_SHARED_CONTEXT, which getInfo matches only on providers whose {@code domain_attr.max_ep_srx_ctx} is not 0.
     *
     * @param attr the receive attributes; those of the endpoints bound to it are a subset
     * @param context the fid context
     * @return the shared receive context
     * @throws FabricException ENOSYS where the provider has no shared receive contexts
     */
    default SharedRxContext srxContext(RxAttr attr, Object context) {
        throw new FabricException(Errno.ENOSYS, info().providerName()
                + " has no shared receive contexts (fi_srx_context); its domain_attr.max_ep_srx_ctx is 0");
    }
}
