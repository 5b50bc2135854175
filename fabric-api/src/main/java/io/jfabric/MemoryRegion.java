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
     * @return the segment given to {@link Domain#registerMemory}
     */
    MemorySegment segment();

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
