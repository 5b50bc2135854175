package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fid_mr} ({@code fi_mr_reg}). The object itself is the descriptor passed as
 * {@code desc} in data-path calls ({@code fi_mr_desc}). Remote peers address it by {@link #key()} and,
 * with FI_MR_VIRT_ADDR, by the segment's address, otherwise by the offset from the region's start.
 */
public interface MemoryRegion extends FabricObject {
    /**
     * {@code fi_mr_key}.
     *
     * @return the key peers pass to RMA calls
     */
    long key();

    /**
     * The access it was registered with.
     *
     * @return Access bits
     */
    long access();

    /**
     * The registered memory.
     *
     * @return the segment given to {@link Domain#registerMemory}; the first one of a region of several
     *     ({@link #segments()})
     */
    MemorySegment segment();

    /**
     * The registered memory of a region made by {@code fi_mr_regv} or {@code fi_mr_regattr}, in the order peers
     * address it.
     *
     * @return a fresh array of the region's segments (one element for a single-segment region)
     */
    default MemorySegment[] segments() {
        return new MemorySegment[] {segment()};
    }

    /**
     * The registered bytes, the sum of {@link #segments()}' sizes.
     *
     * @return the length in bytes peers may address
     */
    default long length() {
        long total = 0;
        for (MemorySegment s : segments()) {
            total += s.byteSize();
        }
        return total;
    }

    /**
     * The {@code context} given to {@code fi_mr_regattr} ({@link MrAttr#context}).
     *
     * @return the context, or null when none was given or the provider does not keep it
     */
    default Object context() {
        return null;
    }

    /**
     * {@code fi_mr_bind} of an endpoint: with FI_MR_ENDPOINT in the domain's mr_mode, a region is bound to the
     * endpoint that uses it and then {@link #enable() enabled}, before any access.
     *
     * @param endpoint the endpoint of the same domain
     * @param flags 0 (libfabric reserves them for endpoints)
     * @throws FabricException ENOSYS where the domain's mr_mode has no FI_MR_ENDPOINT (as libfabric's providers
     *     without it), EINVAL for an endpoint of another provider or domain
     */
    default void bind(Endpoint endpoint, long flags) {
        throw new FabricException(Errno.ENOSYS, "fi_mr_bind: this provider has no FI_MR_ENDPOINT in its mr_mode;"
                + " use the region without binding it");
    }

    /**
     * {@code fi_mr_bind} of a counter, which counts remote accesses to the region (FI_MR_RMA_EVENT).
     *
     * @param counter the counter of the same domain
     * @param flags FI_REMOTE_WRITE and/or FI_REMOTE_READ: the accesses to count
     * @throws FabricException ENOSYS where the provider does not bind regions (no FI_MR_ENDPOINT or
     *     FI_MR_RMA_EVENT), EINVAL for a counter of another provider or domain
     */
    default void bind(Counter counter, long flags) {
        throw new FabricException(Errno.ENOSYS, "fi_mr_bind: this provider binds no counters to regions"
                + " (no FI_MR_RMA_EVENT or FI_MR_ENDPOINT in its mr_mode)");
    }

    /**
     * {@code fi_mr_enable}: makes a region that was {@link #bind(Endpoint, long) bound} usable (FI_MR_ENDPOINT).
     *
     * @throws FabricException ENOSYS where the domain's mr_mode has no FI_MR_ENDPOINT, or the provider's error
     *     (EINVAL when nothing was bound)
     */
    default void enable() {
        throw new FabricException(Errno.ENOSYS, "fi_mr_enable: this provider has no FI_MR_ENDPOINT in its mr_mode;"
                + " its regions are usable as soon as they are registered");
    }

    /**
     * The offset requested at registration; without FI_MR_VIRT_ADDR, remote addresses start there.
     *
     * @return the offset in bytes
     */
    default long offset() {
        return 0;
    }

    /**
     * {@code fi_mr_desc}.
     *
     * @return the provider-specific local descriptor; the region itself unless the provider says otherwise
     */
    default Object descriptor() {
        return this;
    }
}
