package io.jfabric.conformance;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The test's own reading of fi_atomic(3) and libfabric's ofi_atomic.c, written apart from the provider code under
 * test: which combinations exist, and what an operation leaves in a target element. An element is a pair
 * (re, im) of doubles; integers are in re (the test keeps them small and non-negative, so a double holds them
 * exactly), im is 0 but for the complex types.
 */
public final class AtomicModel {
    public static final int WRITE = 0;
    public static final int FETCH = 1;
    public static final int COMPARE = 2;

    private AtomicModel() {
    }

    static boolean isInt(AtomicDatatype t) {
        return t.value() <= AtomicDatatype.UINT64.value();
    }

    static boolean isComplex(AtomicDatatype t) {
        return t == AtomicDatatype.FLOAT_COMPLEX || t == AtomicDatatype.DOUBLE_COMPLEX
                || t == AtomicDatatype.LONG_DOUBLE_COMPLEX;
    }

    /** ofi_atomic_valid's table: the ops of each kind, the bitwise ones on integers only, no ordering on complex. */
    public static boolean libfabricOffers(int kind, AtomicDatatype t, AtomicOp op) {
        int v = op.value();
        boolean ofKind = kind == WRITE ? v <= 9 || op == AtomicOp.ATOMIC_WRITE
                : kind == FETCH ? v <= 11 : v >= 12;
        boolean bitwise = op == AtomicOp.BOR || op == AtomicOp.BAND || op == AtomicOp.BXOR || op == AtomicOp.MSWAP;
        boolean ordering = op == AtomicOp.MIN || op == AtomicOp.MAX || v >= 14 && v <= 17;
        return ofKind && (isInt(t) || !bitwise) && (!isComplex(t) || !ordering);
    }

    /** The element (re, im) after {@code op}; {@code old} is the target's, {@code s} the operand, {@code c} the compare. */
    public static double[] after(AtomicDatatype t, AtomicOp op, double[] old, double[] s, double[] c) {
        double re = old[0];
        double im = old[1];
        switch (op) {
            case MIN -> re = Math.min(re, s[0]);
            case MAX -> re = Math.max(re, s[0]);
            case SUM -> {
                re = round(t, re + s[0]);
                im = round(t, im + s[1]);
            }
            case PROD -> {
                double r = round(t, round(t, re * s[0]) - round(t, im * s[1]));
                im = round(t, round(t, re * s[1]) + round(t, im * s[0]));
                re = r;
            }
            case LOR -> {
                re = truth(old) || truth(s) ? 1 : 0;
                im = 0;
            }
            case LAND -> {
                re = truth(old) && truth(s) ? 1 : 0;
                im = 0;
            }
            case LXOR -> {
                re = truth(old) ^ truth(s) ? 1 : 0;
                im = 0;
            }
            case BOR -> re = (long) re | (long) s[0];
            case BAND -> re = (long) re & (long) s[0];
            case BXOR -> re = (long) re ^ (long) s[0];
            case ATOMIC_READ -> { }
            case ATOMIC_WRITE -> {
                re = s[0];
                im = s[1];
            }
            case MSWAP -> re = ((long) s[0] & (long) c[0]) | ((long) re & ~(long) c[0]);
            default -> {
                boolean swap = switch (op) {
                    case CSWAP -> c[0] == re && c[1] == im;
                    case CSWAP_NE -> !(c[0] == re && c[1] == im);
                    case CSWAP_LE -> c[0] <= re;
                    case CSWAP_LT -> c[0] < re;
                    case CSWAP_GE -> c[0] >= re;
                    default -> c[0] > re;
                };
                if (swap) {
                    re = s[0];
                    im = s[1];
                }
            }
        }
        return new double[] {wrap(t, re), im};
    }

    private static boolean truth(double[] v) {
        return v[0] != 0 || v[1] != 0;
    }

    private static double round(AtomicDatatype t, double v) {
        return t == AtomicDatatype.FLOAT || t == AtomicDatatype.FLOAT_COMPLEX ? (float) v : v;
    }

    /** An integer result wrapped to its type's width (unsigned types stay non-negative). */
    private static double wrap(AtomicDatatype t, double v) {
        if (!isInt(t)) {
            return v;
        }
        long x = (long) v;
        return switch (t) {
            case INT8 -> (byte) x;
            case UINT8 -> x & 0xff;
            case INT16 -> (short) x;
            case UINT16 -> x & 0xffff;
            case INT32 -> (int) x;
            case UINT32 -> x & 0xffff_ffffL;
            default -> x;
        };
    }

    public static void put(AtomicDatatype t, MemorySegment s, int index, double[] v) {
        long at = (long) index * t.size();
        switch (t) {
            case INT8, UINT8 -> s.set(ValueLayout.JAVA_BYTE, at, (byte) (long) v[0]);
            case INT16, UINT16 -> s.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) (long) v[0]);
            case INT32, UINT32 -> s.set(ValueLayout.JAVA_INT_UNALIGNED, at, (int) (long) v[0]);
            case INT64, UINT64 -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, (long) v[0]);
            case FLOAT -> s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) v[0]);
            case DOUBLE -> s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, v[0]);
            case FLOAT_COMPLEX -> {
                s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) v[0]);
                s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at + 4, (float) v[1]);
            }
            case DOUBLE_COMPLEX -> {
                s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, v[0]);
                s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at + 8, v[1]);
            }
            default -> throw new IllegalArgumentException("the test does not write " + t);
        }
    }

    public static double[] get(AtomicDatatype t, MemorySegment s, int index) {
        long at = (long) index * t.size();
        return switch (t) {
            case INT8 -> new double[] {s.get(ValueLayout.JAVA_BYTE, at), 0};
            case UINT8 -> new double[] {s.get(ValueLayout.JAVA_BYTE, at) & 0xff, 0};
            case INT16 -> new double[] {s.get(ValueLayout.JAVA_SHORT_UNALIGNED, at), 0};
            case UINT16 -> new double[] {s.get(ValueLayout.JAVA_SHORT_UNALIGNED, at) & 0xffff, 0};
            case INT32 -> new double[] {s.get(ValueLayout.JAVA_INT_UNALIGNED, at), 0};
            case UINT32 -> new double[] {s.get(ValueLayout.JAVA_INT_UNALIGNED, at) & 0xffff_ffffL, 0};
            case INT64, UINT64 -> new double[] {s.get(ValueLayout.JAVA_LONG_UNALIGNED, at), 0};
            case FLOAT -> new double[] {s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at), 0};
            case DOUBLE -> new double[] {s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, at), 0};
            case FLOAT_COMPLEX -> new double[] {s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at),
                    s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at + 4)};
            case DOUBLE_COMPLEX -> new double[] {s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, at),
                    s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, at + 8)};
            default -> throw new IllegalArgumentException("the test does not read " + t);
        };
    }

    /** Two target elements, operands and compare operands per kind of datatype: each op does something visible. */
    public static double[][] target(AtomicDatatype t) {
        return isInt(t) ? new double[][] {{10, 0}, {3, 0}} : isComplex(t) ? new double[][] {{2.5, 1}, {0, 0}}
                : new double[][] {{2.5, 0}, {-1.5, 0}};
    }

    public static double[][] operand(AtomicDatatype t) {
        return isInt(t) ? new double[][] {{4, 0}, {9, 0}} : isComplex(t) ? new double[][] {{1, -2}, {3, 0}}
                : new double[][] {{4, 0}, {0, 0}};
    }

    public static double[][] compare(AtomicDatatype t) {
        return isInt(t) ? new double[][] {{10, 0}, {7, 0}} : isComplex(t) ? new double[][] {{2.5, 1}, {1, 1}}
                : new double[][] {{2.5, 0}, {1, 0}};
    }
}
