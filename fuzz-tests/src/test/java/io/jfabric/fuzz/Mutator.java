package io.jfabric.fuzz;

import java.util.SplittableRandom;

/**
 * Seeded byte mutations in the style of a mutational fuzzer: bit flips, byte garbage, truncation,
 * extension with random tail, and "interesting" values (0, 1, -1, max, min, powers of two) written over
 * any 1, 2, 4 or 8 byte field, which is how length-field lies and op/version garbage are produced.
 * Deterministic per seed so that a failing case is reproduced from its seed alone.
 */
final class Mutator {
    private static final long[] INTERESTING = {0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 23, 24, 31, 32, 40, 63, 64, 120, 127,
        128, 255, 256, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL,
        Long.MAX_VALUE, Long.MIN_VALUE, -1, -16, 1L << 40, 1L << 62};

    private Mutator() {
    }

    /** One to four stacked mutations of {@code seed}, as a fresh array. */
    static byte[] mutate(byte[] seed, long caseSeed) {
        SplittableRandom r = new SplittableRandom(caseSeed);
        byte[] b = seed.clone();
        int rounds = 1 + r.nextInt(4);
        for (int i = 0; i < rounds; i++) {
            b = mutateOnce(b, r);
        }
        return b;
    }

    private static byte[] mutateOnce(byte[] b, SplittableRandom r) {
        int kind = r.nextInt(6);
        if (b.length == 0) {
            kind = 4;
        }
        switch (kind) {
            case 0 -> { // bit flip
                int bit = r.nextInt(b.length * 8);
                b[bit >>> 3] ^= (byte) (1 << (bit & 7));
            }
            case 1 -> b[r.nextInt(b.length)] = (byte) r.nextInt(256); // byte garbage
            case 2 -> { // interesting value over a field of width 1, 2, 4 or 8
                int width = 1 << r.nextInt(4);
                if (b.length >= width) {
                    int at = r.nextInt(b.length - width + 1);
                    long v = INTERESTING[r.nextInt(INTERESTING.length)];
                    boolean bigEndian = r.nextBoolean();
                    for (int k = 0; k < width; k++) {
                        int shift = 8 * (bigEndian ? width - 1 - k : k);
                        b[at + k] = (byte) (v >>> shift);
                    }
                }
            }
            case 3 -> { // truncation
                b = java.util.Arrays.copyOf(b, r.nextInt(b.length + 1));
            }
            case 4 -> { // extension with random bytes
                int extra = 1 + r.nextInt(64);
                byte[] n = java.util.Arrays.copyOf(b, b.length + extra);
                for (int k = b.length; k < n.length; k++) {
                    n[k] = (byte) r.nextInt(256);
                }
                b = n;
            }
            default -> { // whole random buffer of a similar size
                for (int k = 0; k < b.length; k++) {
                    b[k] = (byte) r.nextInt(256);
                }
            }
        }
        return b;
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(b.length * 3);
        for (byte x : b) {
            if (!s.isEmpty()) {
                s.append(' ');
            }
            s.append(String.format("%02x", x & 0xFF));
        }
        return s.toString();
    }
}
