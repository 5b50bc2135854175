package io.jfabric.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfabric.provider.shm.MpscRing;
import io.jfabric.provider.shm.RecordHandler;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded fuzzing of the shm provider's MPSC ring reader on a real mapped file in /dev/shm: valid records
 * are written with the producer API, then headers, payloads or the trailer are corrupted the way a
 * hostile or crashed peer could, and the consumer must hand out only records lying inside the ring,
 * never throw, terminate every read, and accept fresh records again after draining (and unblocking a
 * record a "dead producer" left claimed).
 */
class ShmRingFuzzTest {
    private static final int CAPACITY = 4096;
    private static final int CASES = 20_000;
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(8);
    private static final int SENTINEL_TYPE = 77;

    private Path file;
    private Arena arena;
    private MemorySegment segment;

    @BeforeEach
    void map() throws IOException {
        file = Files.createTempFile(Path.of("/dev/shm"), "jfabric-fuzz-ring-", ".map");
        arena = Arena.ofConfined();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            segment = ch.map(FileChannel.MapMode.READ_WRITE, 0, MpscRing.segmentSize(CAPACITY), arena);
        }
    }

    @AfterEach
    void unmap() throws IOException {
        arena.close();
        Files.deleteIfExists(file);
    }

    /** Checks every record the ring hands out and counts sentinels. */
    private static final class BoundsCheckingHandler implements RecordHandler {
        final long ringBytes;
        int sentinels;
        int records;
        int corrupt;
        long touched;

        BoundsCheckingHandler(long ringBytes) {
            this.ringBytes = ringBytes;
        }

        @Override
        public boolean onRecord(int type, MemorySegment buffer, long offset, int length) {
            assertTrue(type != MpscRing.PADDING_TYPE, "padding handed out as a record");
            assertTrue(length >= 0 && offset >= MpscRing.HEADER_LENGTH && offset + length <= ringBytes,
                    "record [" + offset + ", +" + length + ") outside the " + ringBytes + " B data area");
            for (long i = 0; i < length; i++) {
                touched += buffer.get(ValueLayout.JAVA_BYTE, offset + i); // proves every byte is readable
            }
            records++;
            if (type == SENTINEL_TYPE) {
                sentinels++;
            }
            return true;
        }

        @Override
        public void onCorruptRecord(long position, int length) {
            corrupt++;
        }
    }

    @Test
    @Timeout(25)
    void corruptRecordsAreDroppedAndTheRingRecovers() {
        long deadline = System.nanoTime() + BUDGET_NANOS;
        int run = 0;
        long corruptSeen = 0;
        for (long seed = 1; seed <= CASES && System.nanoTime() < deadline; seed++, run++) {
            try {
                corruptSeen += oneCase(seed, false);
            } catch (Throwable t) {
                fail("seed " + seed + " (data area): " + t, t);
            }
        }
        assertTrue(run >= 1000, "fuzz pass too short: " + run);
        assertTrue(corruptSeen > 0, "no corruption was ever detected: the mutations do not reach the headers");
    }

    @Test
    @Timeout(25)
    void garbageTrailerPositionsNeverLeadOutsideTheRing() {
        long deadline = System.nanoTime() + BUDGET_NANOS / 2;
        int run = 0;
        for (long seed = 1; seed <= CASES && System.nanoTime() < deadline; seed++, run++) {
            try {
                oneCase(seed, true);
            } catch (Throwable t) {
                fail("seed " + seed + " (trailer): " + t, t);
            }
        }
        assertTrue(run >= 1000, "fuzz pass too short: " + run);
    }

    /** @return corrupt headers the reader reported */
    private int oneCase(long seed, boolean trailer) {
        SplittableRandom r = new SplittableRandom(seed);
        segment.fill((byte) 0);
        MpscRing ring = new MpscRing(segment);
        // a random prefix of consumed records moves head and tail off zero and exercises wrap-around
        int warm = r.nextInt(64);
        BoundsCheckingHandler h = new BoundsCheckingHandler(ring.capacity());
        for (int i = 0; i < warm; i++) {
            produce(ring, r, 1 + r.nextInt(100));
            ring.read(h, 1);
        }
        int n = 1 + r.nextInt(12);
        for (int i = 0; i < n; i++) {
            if (!produce(ring, r, 1 + r.nextInt(100))) {
                break;
            }
        }
        long tail = ring.tailPosition();
        int mutations = 1 + r.nextInt(4);
        for (int m = 0; m < mutations; m++) {
            if (trailer) {
                long value = switch (r.nextInt(4)) {
                    case 0 -> r.nextLong();
                    case 1 -> tail + r.nextInt(-2 * CAPACITY, 2 * CAPACITY);
                    case 2 -> -1L;
                    default -> Long.MAX_VALUE - r.nextInt(64);
                };
                // tail, cached head or head
                long at = ring.capacity() + 128L * (1 + r.nextInt(3));
                segment.set(ValueLayout.JAVA_LONG, at, value);
            } else {
                int at = r.nextInt(ring.capacity() / 16) * 16 + (r.nextBoolean() ? 0 : r.nextInt(16));
                switch (r.nextInt(3)) {
                    case 0 -> segment.set(ValueLayout.JAVA_BYTE, at, (byte) r.nextInt(256));
                    case 1 -> segment.set(ValueLayout.JAVA_INT, at & ~3, new int[] {0, 1, 15, 16, -1, -16,
                        Integer.MIN_VALUE, Integer.MAX_VALUE, CAPACITY, CAPACITY + 16, r.nextInt()}[r.nextInt(11)]);
                    // a header position near the tail, raw or stamped as the ring stores it (position + 1)
                    default -> segment.set(ValueLayout.JAVA_LONG, at & ~7, tail + 16L * r.nextInt(-8, 8) + r.nextInt(2));
                }
            }
        }
        // drain: each read call must end, and the whole drain is bounded
        for (int calls = 0; calls < 64; calls++) {
            int got = ring.read(h, 1000);
            if (got == 0 && !(ring.headBlocked() && ring.unblock())) {
                break;
            }
        }
        if (trailer) {
            return h.corrupt; // positions are garbage: only bounds and termination are meaningful
        }
        assertTrue(ring.headPosition() <= ring.tailPosition(), "reader moved head " + ring.headPosition()
                + " past tail " + ring.tailPosition() + " following forged headers");
        // recovery: a fresh record after the drain must arrive
        if (ring.isEmpty()) {
            long off = ring.tryClaim(SENTINEL_TYPE, 8);
            assertTrue(off != MpscRing.FULL, "empty ring refuses a claim");
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, off, seed);
            ring.commit(off);
            int before = h.sentinels;
            ring.read(h, 10);
            assertEquals(before + 1, h.sentinels, "sentinel record lost after the corruption was drained");
        }
        return h.corrupt;
    }

    private static boolean produce(MpscRing ring, SplittableRandom r, int len) {
        long off = ring.tryClaim(1 + r.nextInt(5), len);
        if (off == MpscRing.FULL) {
            return false;
        }
        ring.buffer().asSlice(off, len).fill((byte) r.nextInt(256));
        ring.commit(off);
        return true;
    }
}
