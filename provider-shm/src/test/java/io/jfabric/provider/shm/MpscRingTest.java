package io.jfabric.provider.shm;

import io.jfabric.provider.shm.ffi.Futex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MpscRingTest {

    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        arena.close();
    }

    private MpscRing ring(int capacity) {
        return new MpscRing(arena.allocate(MpscRing.segmentSize(capacity), 64));
    }

    /** Collects records as (type, first long of payload, length). */
    static final class Collector implements RecordHandler {
        final List<long[]> records = new ArrayList<>();
        int corrupt;

        @Override
        public boolean onRecord(int type, MemorySegment buffer, long offset, int length) {
            long first = length >= 8 ? buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) : -1;
            records.add(new long[] {type, first, length});
            return true;
        }

        @Override
        public void onCorruptRecord(long position, int length) {
            corrupt++;
        }
    }

    private static void write(MpscRing ring, int type, long value, int length) {
        long at = ring.tryClaim(type, length);
        assertTrue(at >= 0, "claim failed: " + ring);
        if (length >= 8) {
            ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, at, value);
        }
        ring.commit(at);
    }

    @Test
    void recordsComeOutInOrderWithTypeAndLength() {
        MpscRing ring = ring(4096);
        write(ring, 7, 42, 8);
        write(ring, 9, 43, 100);
        write(ring, 3, -1, 0);
        Collector c = new Collector();
        assertEquals(3, ring.read(c, 10));
        assertEquals(7, c.records.get(0)[0]);
        assertEquals(42, c.records.get(0)[1]);
        assertEquals(8, c.records.get(0)[2]);
        assertEquals(9, c.records.get(1)[0]);
        assertEquals(100, c.records.get(1)[2]);
        assertEquals(0, c.records.get(2)[2]);
        assertTrue(ring.isEmpty());
        assertEquals(0, ring.read(c, 10));
    }

    @Test
    void uncommittedRecordBlocksLaterOnesUntilCommitted() {
        MpscRing ring = ring(4096);
        long first = ring.tryClaim(1, 16);
        write(ring, 2, 5, 16);
        Collector c = new Collector();
        assertEquals(0, ring.read(c, 10));
        assertTrue(ring.headBlocked());
        ring.commit(first);
        assertEquals(2, ring.read(c, 10));
        assertFalse(ring.headBlocked());
    }

    @Test
    void abortedRecordIsSkipped() {
        MpscRing ring = ring(4096);
        long a = ring.tryClaim(1, 16);
        write(ring, 2, 5, 16);
        ring.abort(a);
        Collector c = new Collector();
        assertEquals(1, ring.read(c, 10));
        assertEquals(2, c.records.get(0)[0]);
    }

    @Test
    void fullRingGivesFullAndRecovers() {
        MpscRing ring = ring(4096);
        int written = 0;
        while (true) {
            long at = ring.tryClaim(1, 48);
            if (at == MpscRing.FULL) {
                break;
            }
            ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, at, written++);
            ring.commit(at);
        }
        assertEquals(64, written);
        Collector c = new Collector();
        assertEquals(10, ring.read(c, 10));
        for (int i = 0; i < 10; i++) {
            assertTrue(ring.tryClaim(1, 48) >= 0 || i >= 10);
        }
    }

    @Test
    void wrapInsertsPaddingAndKeepsEveryRecordIntact() {
        MpscRing ring = ring(4096);
        Collector c = new Collector();
        Random rnd = new Random(1);
        long next = 0;
        long expect = 0;
        for (int round = 0; round < 2000; round++) {
            int len = 8 + rnd.nextInt(400);
            long at = ring.tryClaim(1, len);
            if (at == MpscRing.FULL) {
                ring.read(c, 1 + rnd.nextInt(5));
                continue;
            }
            // fill the whole payload with a pattern derived from the sequence number
            for (int i = 0; i < len; i++) {
                ring.buffer().set(ValueLayout.JAVA_BYTE, at + i, (byte) (next + i));
            }
            ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, at, next++);
            ring.commit(at);
        }
        while (ring.read(c, 100) > 0) {
            // drain
        }
        assertEquals(next, c.records.size());
        for (long[] r : c.records) {
            assertEquals(expect++, r[1]);
        }
        assertEquals(0, c.corrupt);
    }

    @Test
    void manyProducersLoseNothing() throws Exception {
        MpscRing ring = ring(1 << 16);
        int producers = 3;
        int perProducer = 100_000;
        Thread[] threads = new Thread[producers];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
        for (int p = 0; p < producers; p++) {
            final int id = p;
            threads[p] = new Thread(() -> {
                for (int i = 0; i < perProducer; i++) {
                    int len = 8 + (i % 7) * 24;
                    long at;
                    while ((at = ring.tryClaim(1 + id, len)) == MpscRing.FULL) {
                        if (System.nanoTime() > deadline) {
                            return;
                        }
                        Thread.yield();
                    }
                    ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, at, i);
                    ring.commit(at);
                }
            });
            threads[p].start();
        }
        long[] nextExpected = new long[producers];
        long[] received = {0};
        boolean[] orderOk = {true};
        RecordHandler h = (type, buffer, offset, length) -> {
            int id = type - 1;
            long v = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            if (v != nextExpected[id] || length != 8 + (v % 7) * 24) {
                orderOk[0] = false;
            }
            nextExpected[id] = v + 1;
            received[0]++;
            return true;
        };
        while (received[0] < (long) producers * perProducer && System.nanoTime() < deadline) {
            if (ring.read(h, 256) == 0) {
                Thread.onSpinWait();
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals((long) producers * perProducer, received[0]);
        assertTrue(orderOk[0], "per-producer order or length broken");
    }

    @Test
    void corruptLengthIsDroppedAndReadingResumesAtTheNextRecord() {
        MpscRing ring = ring(4096);
        write(ring, 1, 10, 32);
        long bad = ring.tryClaim(1, 32);
        ring.commit(bad);
        write(ring, 1, 12, 32);
        // a hostile or buggy writer puts an absurd length in the middle record's header
        ring.buffer().set(ValueLayout.JAVA_INT, bad - MpscRing.HEADER_LENGTH, 1 << 20);
        Collector c = new Collector();
        assertEquals(2, ring.read(c, 10));
        assertEquals(10, c.records.get(0)[1]);
        assertEquals(12, c.records.get(1)[1]);
        assertEquals(1, c.corrupt);
        assertEquals(1, ring.corruptRecords());
        assertTrue(ring.isEmpty());
    }

    @Test
    void garbageEverywhereNeverReadsOutOfBounds() {
        Random rnd = new Random(7);
        for (int trial = 0; trial < 200; trial++) {
            MpscRing ring = ring(4096);
            MemorySegment seg = ring.buffer();
            for (long i = 0; i < seg.byteSize(); i += 8) {
                seg.set(ValueLayout.JAVA_LONG, i, rnd.nextLong());
            }
            if (trial % 2 == 0) {
                // every 16-byte slot carries its own position, so the consumer trusts the
                // (random) lengths and must bound-check each of them
                seg.set(ValueLayout.JAVA_LONG, 4096 + MpscRing.HEAD_OFFSET, 0L);
                seg.set(ValueLayout.JAVA_LONG, 4096 + MpscRing.TAIL_OFFSET, 4096L);
                for (long p = 0; p < 4096; p += 16) {
                    seg.set(ValueLayout.JAVA_LONG, p + 8, p);
                }
            }
            Collector c = new Collector();
            for (int i = 0; i < 5; i++) {
                ring.read(c, 100);
                ring.unblock();
            }
            for (long[] r : c.records) {
                assertTrue(r[2] >= 0 && r[2] <= 4096, "payload length outside the ring");
            }
        }
    }

    @Test
    void refusedRecordStaysForTheNextRead() {
        MpscRing ring = ring(4096);
        write(ring, 1, 1, 8);
        write(ring, 1, 2, 8);
        long[] seen = new long[1];
        assertEquals(1, ring.read((type, buf, off, len) -> {
            long v = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            if (v == 2) {
                return false;
            }
            seen[0] = v;
            return true;
        }, 10));
        assertEquals(1, seen[0]);
        Collector c = new Collector();
        assertEquals(1, ring.read(c, 10));
        assertEquals(2, c.records.get(0)[1]);
    }

    @Test
    void unblockSkipsARecordWhoseProducerDied() {
        MpscRing ring = ring(4096);
        ring.tryClaim(1, 40); // claimed, never committed: the producer "died"
        write(ring, 2, 99, 16);
        Collector c = new Collector();
        assertEquals(0, ring.read(c, 10));
        assertTrue(ring.headBlocked());
        assertTrue(ring.unblock());
        assertEquals(1, ring.read(c, 10));
        assertEquals(99, c.records.get(0)[1]);
    }

    /**
     * The first record of a fresh (zeroed) ring, caught half-published: its length is written but not yet its
     * type or position. The consumer must wait for it, not read it as padding and lose it (the two-JVM test lost
     * a child's first message this way: its interpreted publish is slow enough for a spinning consumer to catch).
     */
    @Test
    void aHalfPublishedFirstRecordIsNotTakenForPadding() {
        MpscRing ring = ring(4096);
        int payload = 48;
        long position = ring.claim(payload);
        assertEquals(0, position);
        long at = ring.payloadOffset(position);
        ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, at, 7);
        ring.buffer().set(ValueLayout.JAVA_INT, 0, MpscRing.HEADER_LENGTH + payload); // length, as publish starts
        Collector c = new Collector();
        assertEquals(0, ring.read(c, 10));
        assertEquals(0, ring.headPosition(), "the consumer moved past it: " + ring);
        ring.publish(position, 3, payload);
        assertEquals(1, ring.read(c, 10));
        assertEquals(3, c.records.get(0)[0]);
        assertEquals(7, c.records.get(0)[1]);
    }

    /**
     * A producer that sleeps until the consumer takes its record (ShmProgress's sleep with a deferred send) is woken
     * by the consumer's move of the head. Its futex wait either finds the word moved already (EAGAIN) or is woken
     * (0); a missing wake would leave it to its 20 s limit (ETIMEDOUT).
     */
    @Test
    void aProducerAsleepUntilItsRecordIsConsumedIsWokenWhenTheHeadMoves() throws Exception {
        assumeTrue(Futex.supported(), "no futex on this platform");
        MpscRing ring = ring(1024);
        ring.commit(ring.tryClaim(7, 8));
        long end = ring.tailPosition();
        assertTrue(ring.announceConsumeWaiter());
        int seen = ring.headWord();
        assertFalse(ring.consumed(end));
        assertTrue(ring.consumeWaiterAnnounced());
        CompletableFuture<Boolean> slept = new CompletableFuture<>();
        Thread sleeper = Thread.ofPlatform().name("consume-waiter").start(() -> {
            try (Futex futex = new Futex()) {
                slept.complete(futex.await(ring.headWordAddress(), seen, TimeUnit.SECONDS.toNanos(20)));
            } catch (Throwable t) {
                slept.completeExceptionally(t);
            }
        });
        Thread.sleep(200); // most likely asleep by now; if not, its wait finds the word moved
        assertEquals(1, ring.read(new Collector(), 10));
        // woken, or the head had moved before it slept: either way well before its 20 s timeout
        slept.get(15, TimeUnit.SECONDS);
        sleeper.join();
        assertTrue(ring.consumed(end));
        assertFalse(ring.consumeWaiterAnnounced(), "the wake clears the announcement");
        assertNotEquals(seen, ring.headWord());
    }
}
