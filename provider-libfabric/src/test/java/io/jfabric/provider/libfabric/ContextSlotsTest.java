package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ContextSlotsTest {

    @Test
    void everySlotOnceThenNoneUntilOneIsFreed() {
        try (Arena arena = Arena.ofConfined()) {
            ContextSlots slots = new ContextSlots(arena, 8);
            Set<Integer> taken = new HashSet<>();
            for (int i = 0; i < 8; i++) {
                int s = slots.acquire("op" + i, false);
                assertTrue(s >= 0 && s < 8, "a slot index: " + s);
                assertTrue(taken.add(s), "slot " + s + " handed out twice");
            }
            assertEquals(-1, slots.acquire("one too many", false), "all 8 in use");
            assertEquals(0, slots.free());
            int five = slots.indexOf(slots.address(5));
            assertEquals(5, five);
            Object ctx = slots.complete(slots.address(5), true);
            assertEquals(1, slots.free());
            assertEquals(5, slots.acquire(ctx, false), "the only free slot");
            assertEquals(-1, slots.indexOf(slots.address(0) + 8), "not a slot's start");
            assertEquals(-1, slots.indexOf(slots.address(7) + ContextSlots.SLOT_SIZE), "past the last slot");
            assertNull(slots.complete(12345, true), "a context that is not ours maps to nothing");
        }
    }

    @Test
    void aMultiReceiveSlotStaysUntilItsLastUse() {
        try (Arena arena = Arena.ofConfined()) {
            ContextSlots slots = new ContextSlots(arena, 2);
            Object buffer = new Object();
            int s = slots.acquire(buffer, true);
            assertSame(buffer, slots.complete(slots.address(s), false), "a message landed in the buffer");
            assertEquals(1, slots.free(), "the buffer is still posted");
            assertSame(buffer, slots.complete(slots.address(s), true), "the buffer is released");
            assertEquals(2, slots.free());
        }
    }

    @Test
    void aPeekClaimThatFoundItsMessageKeepsItsSlotForTheClaim() {
        try (Arena arena = Arena.ofConfined()) {
            ContextSlots slots = new ContextSlots(arena, 4);
            Object ctx = new Object();
            int peek = postPeekClaim(slots, ctx);
            assertSame(ctx, slots.complete(slots.address(peek), true), "the peek found the message");
            assertEquals(3, slots.free(), "the slot holds the claimed message (fi_tagged(3): same context)");
            for (int i = 0; i < 3; i++) {
                assertNotEquals(peek, slots.acquire("other" + i, false), "a held slot is not handed out");
            }
            assertEquals(-1, slots.reclaim("never peeked"), "a claim without its peek has no slot");
            int claim = slots.reclaim(ctx);
            assertEquals(peek, claim, "the FI_CLAIM receive gets the peek's native context");
            assertEquals(-1, slots.reclaim(ctx), "one claim per peek");
            slots.hold(claim);
            assertEquals(claim, slots.reclaim(ctx), "a refused claim post leaves the message reserved");
            assertSame(ctx, slots.complete(slots.address(claim), true), "the claimed message arrived");
            assertEquals(1, slots.free(), "the claim's completion frees the slot");
        }
    }

    @Test
    void aPeekClaimThatFoundNothingFreesItsSlot() {
        try (Arena arena = Arena.ofConfined()) {
            Object ctx = new Object();
            ContextSlots slots = new ContextSlots(arena, 2);
            assertSame(ctx, slots.fail(slots.address(postPeekClaim(slots, ctx))), "FI_ENOMSG");
            assertEquals(2, slots.free());
            assertEquals(-1, slots.reclaim(ctx), "nothing to claim");
            assertNull(slots.fail(12345), "a context that is not ours maps to nothing");
        }
    }

    /** What LibfabricTagged does for a FI_PEEK|FI_CLAIM post. */
    private static int postPeekClaim(ContextSlots slots, Object ctx) {
        int s = slots.acquire(ctx, false);
        slots.markPeekClaim(s);
        return s;
    }

    @Test
    void aFreedSlotIsTheNextOneTaken() {
        try (Arena arena = Arena.ofConfined()) {
            ContextSlots slots = new ContextSlots(arena, 64);
            int a = slots.acquire("a", false);
            int b = slots.acquire("b", false);
            assertNotEquals(a, b);
            slots.complete(slots.address(a), true);
            assertEquals(a, slots.acquire("c", false), "a request-reply loop finds its slot at the first probe");
        }
    }

    /** Threads claim and free slots at once; no slot may ever be held by two operations. */
    @Test
    void concurrentClaimsNeverShareASlot() throws InterruptedException {
        int threads = 4;
        int rounds = 200_000;
        try (Arena arena = Arena.ofShared()) {
            ContextSlots slots = new ContextSlots(arena, 16);
            AtomicReferenceArray<Object> owner = new AtomicReferenceArray<>(16);
            AtomicInteger clashes = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                workers[t] = new Thread(() -> {
                    Object me = new Object();
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int r = 0; r < rounds; r++) {
                        int s = slots.acquire(me, false);
                        if (s < 0) {
                            refused.incrementAndGet();
                            continue;
                        }
                        if (!owner.compareAndSet(s, null, me)) {
                            clashes.incrementAndGet();
                        }
                        owner.set(s, null);
                        if (slots.complete(slots.address(s), true) != me) {
                            clashes.incrementAndGet();
                        }
                    }
                });
                workers[t].start();
            }
            start.countDown();
            for (Thread w : workers) {
                w.join();
            }
            assertEquals(0, clashes.get(), "a slot was held by two operations at once");
            assertEquals(0, refused.get(), "4 threads holding one slot each never exhaust 16");
            assertEquals(16, slots.free(), "every slot came back");
        }
    }
}
