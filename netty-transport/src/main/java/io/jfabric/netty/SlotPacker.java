package io.jfabric.netty;

import io.jfabric.netty.FrameLink.TxSlot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelOutboundBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Copies a channel's flushed ByteBufs, in order, into one transmit slot after its frame header until the slot is
 * full, so that small writes travel packed in one DATA frame. Direct and heap buffers are copied from their address
 * or array, which allocates nothing: their NIO views (ChannelOutboundBuffer#nioBuffers, ByteBuf#getBytes to a
 * ByteBuffer) are made anew per write by Netty's adaptive buffers, and by pooled ones for getBytes. Other buffers
 * (composites that are not gathered in place) copy through {@link ByteBuf#getBytes(int, ByteBuffer)}. One per
 * channel; loop thread only.
 */
final class SlotPacker implements ChannelOutboundBuffer.MessageProcessor {
    /** The whole address space, so that a copy from a buffer's address needs no segment of its own. */
    private static final MemorySegment EVERYWHERE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private TxSlot slot;
    private int room;
    private int packed;
    private int inPlaceMin;
    private int gatherParts;
    private PayloadViews views;
    private ByteBuf stoppedAt;
    private int gathered;

    /**
     * Copies up to {@code max} flushed bytes of {@code in} into {@code slot}; returns how many (none are removed).
     * With {@code inPlaceMin} above 0 it stops before a buffer with an address and at least that many bytes, while
     * the slot has that much room left, so that the buffer can be sent in place after what was copied
     * ({@link #stoppedAt}); with {@code gatherParts} above 0 also before such a composite whose bytes for the slot
     * lie in at most that many components with addresses, whose segments ({@code views}) it puts in the slot's iov
     * from index 1 ({@link #gathered}).
     */
    int pack(ChannelOutboundBuffer in, TxSlot slot, int max, int inPlaceMin, int gatherParts, PayloadViews views)
            throws Exception {
        this.slot = slot;
        this.inPlaceMin = inPlaceMin;
        this.gatherParts = gatherParts;
        this.views = views;
        gathered = 0;
        room = max;
        packed = 0;
        stoppedAt = null;
        in.forEachFlushedMessage(this);
        this.slot = null;
        return packed;
    }

    /** The buffer the last {@link #pack} stopped before, to go in place; null when it copied all it could. */
    ByteBuf stoppedAt() {
        return stoppedAt;
    }

    /** How many iov entries the last {@link #pack} put in the slot for the composite it stopped before, or 0. */
    int gathered() {
        return gathered;
    }

    @Override
    public boolean processMessage(Object msg) {
        ByteBuf b = (ByteBuf) msg;
        int readable = b.readableBytes();
        if (inPlaceMin > 0 && readable >= inPlaceMin && room >= inPlaceMin && (b.hasMemoryAddress()
                || gatherParts > 0 && b instanceof CompositeByteBuf c && (gathered = CompositeParts.fill(c,
                        Math.min(readable, room), gatherParts, slot.iov, 1, views)) > 0)) {
            stoppedAt = b;
            return false;
        }
        int n = Math.min(readable, room);
        if (n > 0) {
            long at = Frame.HEADER + packed;
            if (b.hasMemoryAddress()) {
                MemorySegment.copy(EVERYWHERE, b.memoryAddress() + b.readerIndex(), slot.memory, at, n);
            } else if (b.hasArray()) {
                MemorySegment.copy(b.array(), b.arrayOffset() + b.readerIndex(), slot.memory, ValueLayout.JAVA_BYTE, at, n);
            } else {
                ByteBuffer into = slot.view;
                into.clear().position((int) at).limit((int) at + n);
                b.getBytes(b.readerIndex(), into);
            }
            room -= n;
            packed += n;
        }
        return room > 0;
    }

    /** Appends {@code n} bytes of {@code slot} from {@code from} to {@code buf}, from its address where it has one. */
    static void unpack(FrameLink.RxSlot slot, int from, ByteBuf buf, int n) {
        if (buf.hasMemoryAddress()) {
            int w = buf.writerIndex();
            MemorySegment.copy(slot.memory, from, EVERYWHERE, buf.memoryAddress() + w, n);
            buf.writerIndex(w + n);
        } else {
            ByteBuffer v = slot.view;
            v.clear().position(from).limit(from + n);
            buf.writeBytes(v);
        }
    }
}
