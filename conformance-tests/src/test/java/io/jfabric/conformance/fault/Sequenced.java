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
}
