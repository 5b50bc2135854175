package io.jfabric.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;

import java.nio.ByteBuffer;

/**
 * A received frame's payload handed to the pipeline where it landed, in its receive slot (no copy, no allocation):
 * the slot's one ByteBuf, revived each time the slot is lent, as a pooled buffer is. Releasing it gives the slot
 * back to its {@link LentSlots}, from whichever thread releases it.
 *
 * <p>Its capacity is the slot's and cannot change, so a decoder that wants to append more than fits copies into a
 * buffer of its own (Netty's cumulators check {@link #maxWritableBytes()} first). Accesses go through the slot's
 * ByteBuffer view, which checks that the memory is still there.
 */
final class SlotByteBuf extends UnpooledDirectByteBuf {
    private final FrameLink.RxSlot slot;
    private final LentSlots owner;

    SlotByteBuf(ByteBuffer payload, FrameLink.RxSlot slot, LentSlots owner) {
        super(UnpooledByteBufAllocator.DEFAULT, payload, payload.remaining());
        this.slot = slot;
        this.owner = owner;
    }

    /** This slot's payload bytes {@code [from, to)} as a live buffer with one reference. */
    ByteBuf lend(int from, int to) {
        resetRefCnt();
        setIndex(from, to);
        markReaderIndex();
        markWriterIndex();
        return this;
    }

    /** The link's spares this slot goes back to. */
    LentSlots owner() {
        return owner;
    }

    @Override
    protected void deallocate() {
        // the memory is the link's: it goes back to the spares, not to the allocator
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
