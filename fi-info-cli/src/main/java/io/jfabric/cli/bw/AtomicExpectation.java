package io.jfabric.cli.bw;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * What {@code jfabric atomic -c} checks: each test starts the target element at a value chosen for its operation,
 * every one of its operations carries the same operand (and compare operand), and the element they leave is
 * computed here by applying fi_atomic(3)'s definition of the operation once per operation, in plain Java
 * arithmetic of the datatype. It shares no code with the providers' own (provider-util's AtomicUpdate), so that a
 * provider bug does not hide in both. The values are picked so that the result depends on how many operations
 * were applied, not on their order (a sum counts them, a product by -1 and an xor flip with each one) and so that
 * nothing is left where it started.
 *
 * <p>A fetch or compare returns the element as it was before the operation; all operations of a window share one
 * result buffer, so after the run it holds what one of the last window's operations fetched: the element after
 * {@code total - k} operations for some k in 1..window.
 *
 * <p>Integers are kept in a {@code long}, sign-extended (signed types) or zero-extended (unsigned), floating-point
 * numbers as doubles rounded to the datatype after every operation, complex numbers as two of them. The long double
 * types have no Java arithmetic and are not checked ({@link #checks}).
 */
final class AtomicExpectation {
    static final int WRITE = 0;
    static final int FETCH = 1;
    static final int COMPARE = 2;

    /** Starting element, operand and compare operand of each operation, as numbers (see {@link #element}). */
    private static final long[][] VALUES = new long[AtomicOp.values().length][];

    static {
        set(AtomicOp.MIN, 100, 7, 0);
        set(AtomicOp.MAX, 7, 100, 0);
        set(AtomicOp.SUM, 10, 1, 0);
        set(AtomicOp.PROD, 3, -1, 0);
        set(AtomicOp.LOR, 0, 1, 0);
        set(AtomicOp.LAND, 5, 0, 0);
        set(AtomicOp.BOR, 0x10, 0x03, 0);
        set(AtomicOp.BAND, 0x13, 0x05, 0);
        set(AtomicOp.LXOR, 0, 1, 0);
        set(AtomicOp.BXOR, 0x0f, 0x3c, 0);
        set(AtomicOp.ATOMIC_READ, 42, 0, 0);
        set(AtomicOp.ATOMIC_WRITE, 42, 9, 0);
        set(AtomicOp.CSWAP, 42, 9, 42);
        set(AtomicOp.CSWAP_NE, 42, 9, 9);
        set(AtomicOp.CSWAP_LE, 42, 9, 20);
        set(AtomicOp.CSWAP_LT, 42, 9, 20);
        set(AtomicOp.CSWAP_GE, 9, 42, 20);
        set(AtomicOp.CSWAP_GT, 9, 42, 20);
        set(AtomicOp.MSWAP, 0xf0, 0x0f, 0x3c);
    }

    private static void set(AtomicOp op, long start, long operand, long compare) {
        VALUES[op.ordinal()] = new long[] {start, operand, compare};
    }

    private AtomicExpectation() {}

    /** Whether -c can check {@code t}: every datatype but the long double ones. */
    static boolean checks(AtomicDatatype t) {
        return t != AtomicDatatype.LONG_DOUBLE && t != AtomicDatatype.LONG_DOUBLE_COMPLEX;
    }

    /** The target element a test of {@code op} on {@code t} starts from. */
    static byte[] start(AtomicOp op, AtomicDatatype t) {
        return element(t, VALUES[op.ordinal()][0], 2);
    }

    /** The operand every operation of the test carries. */
    static byte[] operand(AtomicOp op, AtomicDatatype t) {
        return element(t, VALUES[op.ordinal()][1], 0);
    }

    /** The compare operand every compare operation of the test carries. */
    static byte[] compare(AtomicOp op, AtomicDatatype t) {
        return element(t, VALUES[op.ordinal()][2], 2);
    }

    /**
     * The element of {@code t} for {@code value} (integers wrap to the type's width); a complex number gets
     * {@code imaginary} as its imaginary part, so that its second half is exercised too.
     */
    static byte[] element(AtomicDatatype t, long value, double imaginary) {
        MemorySegment m = MemorySegment.ofArray(new byte[t.size()]);
        switch (t) {
            case INT8, UINT8 -> m.set(ValueLayout.JAVA_BYTE, 0, (byte) value);
            case INT16, UINT16 -> m.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) value);
            case INT32, UINT32 -> m.set(ValueLayout.JAVA_INT_UNALIGNED, 0, (int) value);
            case INT64, UINT64 -> m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
            case FLOAT -> m.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, value);
            case DOUBLE -> m.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, value);
            case FLOAT_COMPLEX -> {
                m.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, value);
                m.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, (float) imaginary);
            }
            case DOUBLE_COMPLEX -> {
                m.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, value);
                m.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 8, imaginary);
            }
            default -> throw new IllegalArgumentException(t.cName() + " has no Java arithmetic to check");
        }
        return m.toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * The check of one test: null when the target holds what {@code total} operations leave and, for fetch and
     * compare, the result buffer holds what one of the last {@code window} of them fetched; otherwise a message
     * naming the operation and datatype with what was expected and what was found.
     *
     * @param kind    WRITE (fi_atomic), FETCH (fi_fetch_atomic) or COMPARE (fi_compare_atomic)
     * @param total   operations applied to the target element (warm-up included)
     * @param window  operations in flight (all fetching into one result buffer)
     * @param target  the target element after the test
     * @param fetched the result buffer after the test (ignored for WRITE)
     */
    static String mismatch(int kind, AtomicOp op, AtomicDatatype t, long total, int window, byte[] target,
                           byte[] fetched) {
        Model m = new Model(t, op);
        byte[] before = null;
        byte[] recent = null;
        for (long i = 0; i < total; i++) {
            if (kind != WRITE && total - i <= window && fetched != null && recent == null) {
                before = m.bytes();
                if (java.util.Arrays.equals(before, fetched)) {
                    recent = before;
                }
            }
            m.step(op);
        }
        String name = (kind == FETCH ? "fetch_" : kind == COMPARE ? "compare_" : "") + AtomicCommand.shortName(op)
                + " on " + t.cName();
        byte[] want = m.bytes();
        if (!java.util.Arrays.equals(want, target)) {
            return name + ": after " + total + " operations the target holds " + show(t, target) + ", expected "
                    + show(t, want);
        }
        if (kind != WRITE && recent == null) {
            return name + ": the fetched element is " + show(t, fetched) + ", expected what one of the last "
                    + Math.min(window, total) + " operations found (the last: " + show(t, before) + ")";
        }
        return null;
    }

    private static String show(AtomicDatatype t, byte[] b) {
        if (b == null) {
            return "nothing";
        }
        Model m = new Model(t, AtomicOp.ATOMIC_READ);
        m.load(b);
        return m + " (bytes " + HexFormat.of().formatHex(b) + ")";
    }

    /** One element of a datatype, changed by fi_atomic(3)'s definitions. */
    private static final class Model {
        private final AtomicDatatype t;
        private final boolean integer;
        private final boolean signed;
        private final boolean complex;
        private final boolean single;
        private final int bits;
        /** The element (integers) ... */
        private long v;
        /** ... or its real and imaginary parts (floating point). */
        private double re;
        private double im;
        private final long opI;
        private final long cmpI;
        private final double opRe;
        private final double opIm;
        private final double cmpRe;
        private final double cmpIm;

        Model(AtomicDatatype t, AtomicOp op) {
            this.t = t;
            this.integer = t.ordinal() <= AtomicDatatype.UINT64.ordinal();
            this.signed = switch (t) {
                case INT8, INT16, INT32, INT64 -> true;
                default -> false;
            };
            this.complex = t == AtomicDatatype.FLOAT_COMPLEX || t == AtomicDatatype.DOUBLE_COMPLEX;
            this.single = t == AtomicDatatype.FLOAT || t == AtomicDatatype.FLOAT_COMPLEX;
            this.bits = t.size() * 8;
            long[] values = VALUES[op.ordinal()];
            v = wrap(values[0]);
            opI = wrap(values[1]);
            cmpI = wrap(values[2]);
            re = values[0];
            im = complex ? 2 : 0;
            opRe = values[1];
            opIm = 0;
            cmpRe = values[2];
            cmpIm = complex ? 2 : 0;
        }

        private long wrap(long x) {
            if (bits == 64) {
                return x;
            }
            return signed ? (x << (64 - bits)) >> (64 - bits) : x & ((1L << bits) - 1);
        }

        private double round(double x) {
            return single ? (float) x : x;
        }

        private int compareInt(long a, long b) {
            return signed ? Long.compare(a, b) : Long.compareUnsigned(a, b);
        }

        void step(AtomicOp op) {
            if (integer) {
                v = stepInt(op);
            } else {
                stepFloat(op);
            }
        }

        private long stepInt(AtomicOp op) {
            long a = v;
            long b = opI;
            long c = cmpI;
            return switch (op) {
                case MIN -> compareInt(b, a) < 0 ? b : a;
                case MAX -> compareInt(b, a) > 0 ? b : a;
                case SUM -> wrap(a + b);
                case PROD -> wrap(a * b);
                case LOR -> a != 0 || b != 0 ? 1 : 0;
                case LAND -> a != 0 && b != 0 ? 1 : 0;
                case BOR -> a | b;
                case BAND -> a & b;
                case LXOR -> (a != 0) != (b != 0) ? 1 : 0;
                case BXOR -> a ^ b;
                case ATOMIC_READ -> a;
                case ATOMIC_WRITE -> b;
                case CSWAP -> c == a ? b : a;
                case CSWAP_NE -> c != a ? b : a;
                case CSWAP_LE -> compareInt(c, a) <= 0 ? b : a;
                case CSWAP_LT -> compareInt(c, a) < 0 ? b : a;
                case CSWAP_GE -> compareInt(c, a) >= 0 ? b : a;
                case CSWAP_GT -> compareInt(c, a) > 0 ? b : a;
                case MSWAP -> (b & c) | (a & ~c);
            };
        }

        private void stepFloat(AtomicOp op) {
            boolean nonzero = re != 0 || im != 0;
            boolean opNonzero = opRe != 0 || opIm != 0;
            boolean equal = re == cmpRe && im == cmpIm;
            switch (op) {
                case MIN -> re = opRe < re ? opRe : re;
                case MAX -> re = opRe > re ? opRe : re;
                case SUM -> {
                    re = round(re + opRe);
                    im = round(im + opIm);
                }
                case PROD -> {
                    double r = round(round(re * opRe) - round(im * opIm));
                    im = round(round(re * opIm) + round(im * opRe));
                    re = r;
                }
                case LOR -> logical(nonzero || opNonzero);
                case LAND -> logical(nonzero && opNonzero);
                case LXOR -> logical(nonzero != opNonzero);
                case ATOMIC_READ -> { }
                case ATOMIC_WRITE -> write();
                case CSWAP -> {
                    if (equal) {
                        write();
                    }
                }
                case CSWAP_NE -> {
                    if (!equal) {
                        write();
                    }
                }
                case CSWAP_LE -> {
                    if (cmpRe <= re) {
                        write();
                    }
                }
                case CSWAP_LT -> {
                    if (cmpRe < re) {
                        write();
                    }
                }
                case CSWAP_GE -> {
                    if (cmpRe >= re) {
                        write();
                    }
                }
                case CSWAP_GT -> {
                    if (cmpRe > re) {
                        write();
                    }
                }
                default -> throw new IllegalArgumentException(op + " is not defined on " + t.cName());
            }
        }

        private void logical(boolean b) {
            re = b ? 1 : 0;
            im = 0;
        }

        private void write() {
            re = opRe;
            im = opIm;
        }

        byte[] bytes() {
            MemorySegment m = MemorySegment.ofArray(new byte[t.size()]);
            switch (t) {
                case INT8, UINT8 -> m.set(ValueLayout.JAVA_BYTE, 0, (byte) v);
                case INT16, UINT16 -> m.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) v);
                case INT32, UINT32 -> m.set(ValueLayout.JAVA_INT_UNALIGNED, 0, (int) v);
                case INT64, UINT64 -> m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
                case FLOAT -> m.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, (float) re);
                case DOUBLE -> m.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, re);
                case FLOAT_COMPLEX -> {
                    m.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, (float) re);
                    m.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, (float) im);
                }
                case DOUBLE_COMPLEX -> {
                    m.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, re);
                    m.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 8, im);
                }
                default -> throw new IllegalArgumentException(t.cName() + " has no Java arithmetic to check");
            }
            return m.toArray(ValueLayout.JAVA_BYTE);
        }

        void load(byte[] b) {
            MemorySegment m = MemorySegment.ofArray(b);
            switch (t) {
                case INT8, UINT8 -> v = wrap(m.get(ValueLayout.JAVA_BYTE, 0));
                case INT16, UINT16 -> v = wrap(m.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0));
                case INT32, UINT32 -> v = wrap(m.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                case INT64, UINT64 -> v = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                case FLOAT -> re = m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0);
                case DOUBLE -> re = m.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0);
                case FLOAT_COMPLEX -> {
                    re = m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0);
                    im = m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 4);
                }
                default -> {
                    re = m.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0);
                    im = m.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 8);
                }
            }
        }

        @Override
        public String toString() {
            if (integer) {
                return signed ? Long.toString(v) : Long.toUnsignedString(v);
            }
            return complex ? re + (im < 0 ? "" : "+") + im + "i" : Double.toString(re);
        }
    }
}
