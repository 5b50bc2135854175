package io.jfabric.cli.pingpong;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fi_pingpong's data-integrity pattern (-c): message n carries the 62-character alphabet "0-9a-zA-Z"
 * starting at index (n * 7) mod 62 and wrapping. Filling and checking keep separate message counters,
 * as the C tool does, so both sides agree as long as they exchange the same messages. Shared with
 * {@code jfabric bw} and {@code rma-bw}.
 */
public final class IntegrityPattern {
    private static final byte[] ALPHABET =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int SEED = 7;

    private int fillIteration;
    private int checkIteration;

    public void fill(MemorySegment buf, long size) {
        int index = (int) (((long) (fillIteration++) * SEED) % ALPHABET.length);
        for (long i = 0; i < size; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, ALPHABET[index++]);
            if (index >= ALPHABET.length) {
                index = 0;
            }
        }
    }

    /** Index of the first wrong byte, or -1 when the message is intact. */
    public long check(MemorySegment buf, long size) {
        int index = (int) (((long) (checkIteration++) * SEED) % ALPHABET.length);
        for (long i = 0; i < size; i++) {
            if (buf.get(ValueLayout.JAVA_BYTE, i) != ALPHABET[index++]) {
                return i;
            }
            if (index >= ALPHABET.length) {
                index = 0;
            }
        }
        return -1;
    }

    /** The message counter of the last check, 1-based as fi_pingpong prints it. */
    public int checkIteration() {
        return checkIteration;
    }
}
