package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Fixed-size bounce slots in the sender's own region, for messages too large to travel inline in
 * the receiver's ring and for the pipelined fallback when CMA is refused (libfabric's inject and
 * SAR pools). The owner takes a slot, fills it, and names it in a ring record; the receiver
 * copies the data out and hands the slot back by clearing its state word with release semantics.
 *
 * <p>A slot's state word holds 0 when free, otherwise the tag the owner gave when taking it
 * (typically the peer's index + 1), so the owner can reclaim every slot a dead peer held.
 */
public final class BouncePool {

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment segment;
    private final int slotSize;
    private final int slotCount;
    private final long dataOffset;
    private int hint;

    public BouncePool(MemorySegment segment, int slotSize, int slotCount) {
        if (segment.byteSize() < segmentSize(slotSize, slotCount)) {
            throw new IllegalArgumentException("bounce segment too small");
        }
        this.segment = segment;
        this.slotSize = slotSize;
        this.slotCount = slotCount;
        this.dataOffset = RegionLayout.align((long) slotCount * Long.BYTES, RegionLayout.PAGE);
    }

    public static long segmentSize(int slotSize, int slotCount) {
        return RegionLayout.align((long) slotCount * Long.BYTES, RegionLayout.PAGE) + (long) slotSize * slotCount;
    }

    public int slotSize() {
        return slotSize;
    }

    public int slotCount() {
        return slotCount;
    }

    /**
     * Takes a free slot for {@code tag} (non-zero). Owner side; safe from several threads.
     *
     * @return the slot index, or -1 when every slot is in use
     */
    public int acquire(long tag) {
        int start = hint;
        for (int i = 0; i < slotCount; i++) {
            int slot = start + i;
            if (slot >= slotCount) {
                slot -= slotCount;
            }
            long at = (long) slot * Long.BYTES;
            if ((long) LONG.getAcquire(segment, at) == 0 && LONG.compareAndSet(segment, at, 0L, tag)) {
                hint = slot + 1 == slotCount ? 0 : slot + 1;
                return slot;
            }
        }
        return -1;
    }

    /** Hands a slot back; called by whoever consumed it (normally the peer, through its own mapping). */
    public void release(int slot) {
        LONG.setRelease(segment, (long) slot * Long.BYTES, 0L);
    }

    public boolean isFree(int slot) {
        return (long) LONG.getAcquire(segment, (long) slot * Long.BYTES) == 0;
    }

    public long tag(int slot) {
        return (long) LONG.getAcquire(segment, (long) slot * Long.BYTES);
    }

    /** Frees every slot held under {@code tag} (its peer died); returns how many. */
    public int reclaim(long tag) {
        int n = 0;
        for (int slot = 0; slot < slotCount; slot++) {
            if (LONG.compareAndSet(segment, (long) slot * Long.BYTES, tag, 0L)) {
                n++;
            }
        }
        return n;
    }

    /** Slots currently in use. */
    public int inUse() {
        int n = 0;
        for (int slot = 0; slot < slotCount; slot++) {
            if (!isFree(slot)) {
                n++;
            }
        }
        return n;
    }

    /** Offset of slot data within {@link #segment()}. */
    public long slotOffset(int slot) {
        return dataOffset + (long) slot * slotSize;
    }

    /** The slot's data, bounds-checked; {@code slot} may come from a peer, so it is validated. */
    public MemorySegment slot(int slot) {
        if (slot < 0 || slot >= slotCount) {
            throw new IndexOutOfBoundsException("bounce slot " + slot + " of " + slotCount);
        }
        return segment.asSlice(slotOffset(slot), slotSize);
    }

    public MemorySegment segment() {
        return segment;
    }
}
