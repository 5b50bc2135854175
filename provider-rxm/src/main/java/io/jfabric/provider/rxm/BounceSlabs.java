package io.jfabric.provider.rxm;

import io.jfabric.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * Native memory for bounce buffers of one size, carved from slabs that are registered with the core once
 * each (when it needs FI_MR_LOCAL; {@code register} returns null otherwise). A verbs connection preposts
 * msg_rx_size receive buffers, and one registration per buffer made accepting one connection take seconds
 * under Soft-RoCE, with an MR-cache entry per buffer; libfabric's rxm registers its buffer pools by region
 * too. The slabs come from the endpoint's arena ({@link RxmPools}), freed when the endpoint closes, not when
 * the garbage collector finds them: a process that opens and closes many endpoints (a Netty channel is one) would
 * otherwise hold their slabs until a GC that a small heap may never need, and run out of direct memory.
 */
final class BounceSlabs {
    /** Buffers per slab: a slab of 16 KiB buffers is about half a MiB. */
    static final int PER_SLAB = 32;

    private final long bufferSize;
    private final long stride;
    private final Arena arena;
    private final Function<MemorySegment, MemoryRegion> register;
    private MemorySegment slab;
    private MemoryRegion slabMr;
    private int used = PER_SLAB;

    BounceSlabs(long bufferSize, Arena arena, Function<MemorySegment, MemoryRegion> register) {
        this.bufferSize = bufferSize;
        this.arena = arena;
        this.stride = (bufferSize + 63) & -64L;
        this.register = register;
    }

    /** The next buffer; its registration is {@link #registration()} until the next call. */
    MemorySegment next() {
        if (used == PER_SLAB) {
            slab = arena.allocate(stride * PER_SLAB, 4096);
            slabMr = register.apply(slab);
            used = 0;
        }
        return slab.asSlice(stride * used++, bufferSize);
    }

    /** The registration covering the buffer {@link #next} returned last (null when the core needs none). */
    MemoryRegion registration() {
        return slabMr;
    }
}
