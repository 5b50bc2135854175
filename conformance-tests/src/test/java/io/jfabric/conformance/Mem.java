package io.jfabric.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Native buffers with a position-dependent pattern, so a misplaced or missing byte is found. */
final class Mem {
    static final long PAGE = 4096;

    private Mem() {
    }

    static MemorySegment alloc(Arena arena, long size) {
        return arena.allocate(Math.max(size, 1), PAGE).asSlice(0, size);
    }

    /** Byte i of message {@code seed}. */
    static byte patternByte(long seed, long i) {
        long x = (i + 1) * 0x9E3779B97F4A7C15L + seed * 0xC2B2AE3D27D4EB4FL;
        return (byte) (x >>> 56 ^ x >>> 29);
    }

    static void fill(MemorySegment seg, long seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, patternByte(seed, i));
        }
    }

    /** Index of the first byte that differs from the pattern of {@code seed}, or -1. */
    static long mismatch(MemorySegment seg, long seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) != patternByte(seed, i)) {
                return i;
            }
        }
        return -1;
    }

    static void fill(MemorySegment seg, byte value) {
        seg.fill(value);
    }

    /** Index of the first byte that is not {@code value}, or -1. */
    static long mismatch(MemorySegment seg, byte value) {
        for (long i = 0; i < seg.byteSize(); i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) != value) {
                return i;
            }
        }
        return -1;
    }

    /** The receive buffer a test posted as its own context, or an assertion failure naming what came instead. */
    static MemorySegment postedBuffer(io.jfabric.CqEntry e) {
        if (e.context instanceof MemorySegment seg) {
            return seg;
        }
        throw new AssertionError("a receive completion whose context is not the posted buffer: " + e);
    }
}
