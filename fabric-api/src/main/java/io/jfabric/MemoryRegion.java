package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fid_mr} ({@code fi_mr_reg}). The object itself is the descriptor passed as
 * {@code desc} in data-path calls ({@code fi_mr_desc}). Remote peers address it by {@link #key()} and,
 * with FI_MR_VIRT_ADDR, by the segment's address, otherwise by the offset from the region's start.
 */
public interface MemoryRegion extends FabricObject {
    /** {@code fi_mr_key}. */
    long key();

    /** Access bits it was registered with. */
    long access();

    /** The registered memory. */
    MemorySegment segment();

    /** Offset requested at registration (remote addresses start there when not VIRT_ADDR). */
    default long offset() {
        return 0;
    }

    /** Provider-specific descriptor ({@code fi_mr_desc}); the region itself unless the provider says otherwise. */
    default Object descriptor() {
        return this;
    }
}
