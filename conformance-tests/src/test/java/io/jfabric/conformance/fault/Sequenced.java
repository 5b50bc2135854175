package io.jfabric.conformance.fault;

import io.jfabric.conformance.Mem;

import java.lang.foreign.MemorySegment;

/**
 * Message {@code seq} of a fault test's stream: every byte is the pattern of seed {@code seq}, so a lost,
 * duplicated, reordered or torn message is found by the receiver.
 */
final class Sequenced {
    private Sequenced() {
    }

    static void fill(MemorySegment msg, int seq) {
        Mem.fill(msg, (long) seq);
    }

    /** Null when {@code msg} holds message {@code seq} whole ({@code len} bytes of {@code size}), else what is wrong. */
    static String check(MemorySegment msg, int seq, long len, long size) {
        if (len != size) {
            return "message " + seq + " has " + len + " bytes, sent " + size;
        }
        long at = Mem.mismatch(msg, (long) seq);
        return at < 0 ? null : "message " + seq + " wrong at byte " + at + " (lost, reordered or torn)";
    }

    /** Message {@code id} whose first four bytes also carry the id, for a receiver that can't know which comes. */
    static void fillNumbered(MemorySegment msg, int id) {
        fill(msg, id);
        msg.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0, id);
    }

    /** The id of a {@link #fillNumbered} message of {@code size} bytes received as {@code len}, or -1 if it is torn. */
    static int numberOf(MemorySegment msg, long len, long size) {
        if (len != size || size < 4) {
            return -1;
        }
        int id = msg.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0);
        for (long i = 4; i < size; i++) {
            if (msg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != Mem.patternByte(id, i)) {
                return -1;
            }
        }
        return id;
    }
}
