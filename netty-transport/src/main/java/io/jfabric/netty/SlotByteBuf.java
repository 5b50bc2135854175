package io.jfabric.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;

import java.lang.foreign.MemorySegment;

/**
 * A received frame's payload handed to the pipeline where it landed, in its receive slot (no copy, no allocation):
 * the slot's one ByteBuf, revived each time the slot is lent, as a pooled buffer is. Releasing it gives the slot
 * back to its {@link LentSlots}, from whichever thread releases it.
 *
 * <p>Its capacity is the slot's and cannot change, so a decoder that wants to append more than fits copies into a
 * buffer of its own (Netty's cumulators check {@link #maxWritableBytes()} first). Accesses go through the slot's
 * ByteBuffer view, which checks that the memory is still there.
 *
 * <p>Netty's leak detector watches it as it watches a pooled buffer: each lend is tracked at the detector's level
 * (sampled at SIMPLE, every lend at PARANOID, none when disabled), and while lent the buffer is reachable only from
 * whoever holds it (its slot lets go of it until it comes back), so one that is dropped unreleased is collected and
 * reported, with where it was lent. Its slot then stays out, as a leaked pooled buffer's memory does.
 */
final class SlotByteBuf extends UnpooledDirectByteBuf {
    private static final ResourceLeakDetector<SlotByteBuf> LEAKS =
            ResourceLeakDetectorFactory.instance().newResourceLeakDetector(SlotByteBuf.class);

    private final FrameLink.RxSlot slot;
    private final LentSlots owner;
    /** Where the payload starts: Netty's own buffer asks the JDK for it on every call, which allocates. */
    private final long address;
    /** This lend's tracker, when the detector chose to track it. */
    private ResourceLeakTracker<SlotByteBuf> leak;

    SlotByteBuf(MemorySegment payload, FrameLink.RxSlot slot, LentSlots owner) {
        super(UnpooledByteBufAllocator.DEFAULT, payload.asByteBuffer(), (int) payload.byteSize());
        this.slot = slot;
        this.owner = owner;
        this.address = payload.address();
    }

    @Override
    public long memoryAddress() {
        ensureAccessible();
        return address;
    }

    /** This slot's payload bytes {@code [from, to)} as a live buffer with one reference. */
    SlotByteBuf lend(int from, int to) {
        resetRefCnt();
        setIndex(from, to);
        markReaderIndex();
        markWriterIndex();
        leak = LEAKS.track(this);
        return this;
    }

    /**
     * A pipeline stage took the buffer: at ADVANCED or PARANOID a tracked lend records it, so that a leak report
     * shows the handlers it went through, as Netty's own leak-aware buffers do (recording takes a stack trace, which
     * SIMPLE does not pay for).
     */
    @Override
    public ByteBuf touch(Object hint) {
        ResourceLeakTracker<SlotByteBuf> tracker = recording();
        if (tracker != null) {
            tracker.record(hint);
        }
        return this;
    }

    @Override
    public ByteBuf touch() {
        ResourceLeakTracker<SlotByteBuf> tracker = recording();
        if (tracker != null) {
            tracker.record();
        }
        return this;
    }

    /** This lend's tracker where the detector's level keeps access records, else null. */
    private ResourceLeakTracker<SlotByteBuf> recording() {
        ResourceLeakTracker<SlotByteBuf> tracker = leak;
        return tracker != null && ResourceLeakDetector.getLevel().compareTo(ResourceLeakDetector.Level.ADVANCED) >= 0
                ? tracker : null;
    }

    /** The link's spares this slot goes back to. */
    LentSlots owner() {
        return owner;
    }

    @Override
    protected void deallocate() {
        // the memory is the link's: it goes back to the spares, not to the allocator
        ResourceLeakTracker<SlotByteBuf> tracker = leak;
        if (tracker != null) {
            leak = null;
            tracker.close(this);
        }
        slot.buf = this;
        owner.giveBack(slot);
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        if (newCapacity != capacity()) {
            throw new UnsupportedOperationException("a received frame's buffer keeps its slot's capacity ("
                    + capacity() + " bytes); copy it to resize");
        }
        return this;
    }
}
