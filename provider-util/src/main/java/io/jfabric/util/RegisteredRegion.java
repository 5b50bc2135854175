package io.jfabric.util;

import io.jfabric.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * A memory region whose attributes are what was registered ({@link RegisteredMemory}), so each provider's
 * region class holds only its own part (a key map entry, a native fid, an ibv_mr).
 */
public interface RegisteredRegion extends MemoryRegion {
    /** What was registered. */
    RegisteredMemory registered();

    @Override
    default long access() {
        return registered().access();
    }

    @Override
    default MemorySegment segment() {
        return registered().segments()[0];
    }

    @Override
    default MemorySegment[] segments() {
        return registered().segments().clone();
    }

    @Override
    default long offset() {
        return registered().offset();
    }

    @Override
    default Object context() {
        return registered().context();
    }
}
