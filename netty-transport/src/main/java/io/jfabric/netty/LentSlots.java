package io.jfabric.netty;

import io.jfabric.netty.FrameLink.RxSlot;

import java.lang.foreign.Arena;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The spare receive slots of a link, which let a large received frame go to the pipeline in its own slot (a
 * {@link SlotByteBuf}) while a spare takes its place at the endpoint, so the credit window is never short of
 * posted slots however long the pipeline keeps the buffer. With no spare left the stream copies, as before.
 *
 * <p>Slots come back when their buffer is released, on any thread, through a lock-free stack the loop empties
 * when it next needs a spare. The link's memory must outlive every lent buffer, so when the link closes with
 * slots still out, the last one given back frees it.
 */
final class LentSlots {
    /** Added to {@link #out} when the link closes; what remains then is the slots still lent. */
    private static final int CLOSED = 1 << 30;

    private final Arena arena;
    private final RxSlot[] spares;
    private int spareCount;
    private final AtomicReference<RxSlot> returned = new AtomicReference<>();
    private final AtomicInteger out = new AtomicInteger();

    LentSlots(Arena arena, RxSlot[] spares) {
        this.arena = arena;
        this.spares = spares.clone();
        this.spareCount = spares.length;
    }

    /** A spare slot to post in place of one being lent, or null when every spare is out; loop thread only. */
    RxSlot takeSpare() {
        if (spareCount == 0) {
            for (RxSlot s = returned.getAndSet(null); s != null; ) {
                RxSlot next = s.nextReturned;
                s.nextReturned = null;
                spares[spareCount++] = s;
                s = next;
            }
        }
        return spareCount == 0 ? null : spares[--spareCount];
    }

    /** Puts back a spare that was taken but not used. */
    void untake(RxSlot spare) {
        spares[spareCount++] = spare;
    }

    /** Hands {@code slot}'s payload bytes {@code [from, to)} to the pipeline; loop thread only. */
    SlotByteBuf lend(RxSlot slot, int from, int to) {
        out.incrementAndGet();
        SlotByteBuf buf = slot.buf;
        slot.buf = null; // held only by the pipeline until released, so that a dropped one is collected and reported
        return buf.lend(from, to);
    }

    /** How many slots the pipeline holds now. */
    int lent() {
        return out.get() & (CLOSED - 1);
    }

    /** Whether the link has closed (its memory may still be held by lent slots). */
    boolean linkClosed() {
        return (out.get() & CLOSED) != 0;
    }

    /** Whether the link's memory is gone. */
    boolean memoryFreed() {
        return !arena.scope().isAlive();
    }

    /** A lent slot's buffer was released (any thread): the slot is a spare again. */
    void giveBack(RxSlot slot) {
        RxSlot head;
        do {
            head = returned.get();
            slot.nextReturned = head;
        } while (!returned.compareAndSet(head, slot));
        if (out.decrementAndGet() == CLOSED) {
            arena.close();
        }
    }

    /** The link closed: its memory goes now, or with the last lent slot. */
    void close() {
        if (out.getAndAdd(CLOSED) == 0) {
            arena.close();
        }
    }
}
