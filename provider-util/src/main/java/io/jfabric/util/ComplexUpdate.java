package io.jfabric.util;

import io.jfabric.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The operations FI_FLOAT_COMPLEX and FI_DOUBLE_COMPLEX offer (sum, product, the logical ones, read, write,
 * CSWAP and CSWAP_NE), on one element whose lock {@link AtomicUpdate} holds. A float complex is computed in
 * doubles and rounded to float after every arithmetic step, which gives C's float results: a double holds the
 * exact product of two floats, and rounding a double sum or difference of floats to float is correctly rounded.
 */
final class ComplexUpdate {
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private ComplexUpdate() {
    }

    static void apply(boolean single, AtomicOp op, MemorySegment t, long at, MemorySegment src, long srcAt,
                      MemorySegment cmp, long cmpAt) {
        int part = single ? 4 : 8;
        double re = get(single, t, at);
        double im = get(single, t, at + part);
        double sRe = src == null ? 0 : get(single, src, srcAt);
        double sIm = src == null ? 0 : get(single, src, srcAt + part);
        double nRe;
        double nIm;
        switch (op) {
            case SUM -> {
                nRe = round(single, re + sRe);
                nIm = round(single, im + sIm);
            }
            case PROD -> {
                nRe = round(single, round(single, re * sRe) - round(single, im * sIm));
                nIm = round(single, round(single, re * sIm) + round(single, im * sRe));
            }
            case LOR -> {
                nRe = truth(re, im) || truth(sRe, sIm) ? 1 : 0;
                nIm = 0;
            }
            case LAND -> {
                nRe = truth(re, im) && truth(sRe, sIm) ? 1 : 0;
                nIm = 0;
            }
            case LXOR -> {
                nRe = truth(re, im) != truth(sRe, sIm) ? 1 : 0;
                nIm = 0;
            }
            case ATOMIC_READ -> {
                return;
            }
            case ATOMIC_WRITE -> {
                nRe = sRe;
                nIm = sIm;
            }
            case CSWAP, CSWAP_NE -> {
                boolean eq = get(single, cmp, cmpAt) == re && get(single, cmp, cmpAt + part) == im;
                if (eq != (op == AtomicOp.CSWAP)) {
                    return;
                }
                nRe = sRe;
                nIm = sIm;
            }
            default -> throw new IllegalArgumentException(op + " is not offered on complex types");
        }
        put(single, t, at, nRe);
        put(single, t, at + part, nIm);
    }

    private static boolean truth(double re, double im) {
        return re != 0 || im != 0;
    }

    private static double round(boolean single, double v) {
        return single ? (float) v : v;
    }

    private static double get(boolean single, MemorySegment s, long at) {
        return single ? s.get(FLOAT, at) : s.get(DOUBLE, at);
    }

    private static void put(boolean single, MemorySegment s, long at, double v) {
        if (single) {
            s.set(FLOAT, at, (float) v);
        } else {
            s.set(DOUBLE, at, v);
        }
    }
}
