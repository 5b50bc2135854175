package io.jfabric.util;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * What an atomic operation does at its target (libfabric's ofi_atomic.c): one place for the semantics of every
 * {@link AtomicOp} on every {@link AtomicDatatype} a Java provider offers, and for which combinations exist.
 *
 * <p>Each element is updated atomically with respect to every other update of the same datatype on it: in native
 * memory, integers, floats and doubles by a compare-and-set loop on the element itself (1- and 2-byte elements on
 * their aligned 4-byte word, whose other bytes the CAS leaves as they are), which is atomic against any CPU
 * access from any process that maps the memory; the complex types, and elements of heap memory, under one of a
 * fixed set of locks chosen by address, which is atomic against every update made through this class in this
 * JVM. The Java providers apply an atomic in the process that owns the target memory, so that is every update
 * through the fabric. FI_LONG_DOUBLE and FI_LONG_DOUBLE_COMPLEX are not offered: Java has no 80-bit floating
 * point to compute them in.
 */
public final class AtomicUpdate {
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    /** All of memory, addressed absolutely: the CAS targets are checked against their region before. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final VarHandle INT_CAS = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG_CAS = ValueLayout.JAVA_LONG.varHandle();
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final int STRIPES = 256;
    private static final Object[] LOCKS = new Object[STRIPES];

    static {
        for (int i = 0; i < STRIPES; i++) {
            LOCKS[i] = new Object();
        }
    }

    private AtomicUpdate() {
    }

    /**
     * Whether the Java providers offer {@code op} on {@code datatype} for calls of {@code kind}, as
     * ofi_atomic_valid answers (the long double types excepted).
     *
     * @param kind AtomicRequest.WRITE, FETCH or COMPARE
     * @param datatype the element type
     * @param op the operation
     * @return true when offered
     */
    public static boolean supported(int kind, AtomicDatatype datatype, AtomicOp op) {
        boolean kindHasOp = switch (kind) {
            case AtomicRequest.WRITE -> op.value() <= AtomicOp.BXOR.value() || op == AtomicOp.ATOMIC_WRITE;
            case AtomicRequest.FETCH -> op.value() <= AtomicOp.ATOMIC_WRITE.value();
            case AtomicRequest.COMPARE -> op.value() >= AtomicOp.CSWAP.value();
            default -> false;
        };
        if (!kindHasOp) {
            return false;
        }
        return switch (datatype) {
            case LONG_DOUBLE, LONG_DOUBLE_COMPLEX -> false;
            case FLOAT, DOUBLE -> !bitwise(op);
            case FLOAT_COMPLEX, DOUBLE_COMPLEX -> !bitwise(op) && !ordered(op);
            default -> true;
        };
    }

    private static boolean bitwise(AtomicOp op) {
        return op == AtomicOp.BOR || op == AtomicOp.BAND || op == AtomicOp.BXOR || op == AtomicOp.MSWAP;
    }

    private static boolean ordered(AtomicOp op) {
        return op == AtomicOp.MIN || op == AtomicOp.MAX || op.value() >= AtomicOp.CSWAP_LE.value()
                && op.value() <= AtomicOp.CSWAP_GT.value();
    }

    /**
     * Whether a target address suits the datatype: a multiple of the element size (of a component's, for the
     * complex types).
     *
     * @param datatype the element type
     * @param address the target's absolute address (or offset in a heap region)
     * @return true when aligned
     */
    public static boolean aligned(AtomicDatatype datatype, long address) {
        int align = complex(datatype) ? datatype.size() / 2 : datatype.size();
        return (address & (align - 1)) == 0;
    }

    private static boolean complex(AtomicDatatype t) {
        return t == AtomicDatatype.FLOAT_COMPLEX || t == AtomicDatatype.DOUBLE_COMPLEX;
    }

    /**
     * Applies {@code op} to {@code count} consecutive target elements. The operands, compare operands and
     * results are consecutive elements too, at any alignment.
     *
     * @param datatype the element type, one {@link #supported} accepts with {@code op}
     * @param op the operation
     * @param target the target memory, already checked for access and range
     * @param at the first target element's offset in {@code target}
     * @param src the operands, or null (FI_ATOMIC_READ)
     * @param srcAt the first operand's offset
     * @param cmp the compare operands (FI_MSWAP: masks), or null
     * @param cmpAt the first compare operand's offset
     * @param result receives the target's elements from before the operation, or null
     * @param resultAt where the first result goes
     * @param count elements
     */
    public static void apply(AtomicDatatype datatype, AtomicOp op, MemorySegment target, long at, MemorySegment src,
                             long srcAt, MemorySegment cmp, long cmpAt, MemorySegment result, long resultAt,
                             long count) {
        int size = datatype.size();
        boolean locked = complex(datatype) || !target.isNative();
        for (long i = 0; i < count; i++) {
            long d = i * size;
            if (locked) {
                synchronized (LOCKS[stripe(target.address() + at + d)]) {
                    applyPlain(datatype, op, target, at + d, src, srcAt + d, cmp, cmpAt + d, result, resultAt + d);
                }
            } else {
                long s = src == null ? 0 : load(datatype, src, srcAt + d);
                long c = cmp == null ? 0 : load(datatype, cmp, cmpAt + d);
                long old = casElement(datatype, op, target.address() + at + d, s, c);
                if (result != null) {
                    store(datatype, result, resultAt + d, old);
                }
            }
        }
    }

    private static int stripe(long address) {
        return (int) ((address >>> 4) ^ (address >>> 12)) & (STRIPES - 1);
    }

    /** One element in native memory by CAS; returns its previous bits. */
    private static long casElement(AtomicDatatype t, AtomicOp op, long address, long src, long cmp) {
        int size = t.size();
        if (size == 8) {
            while (true) {
                long old = (long) LONG_CAS.getVolatile(ALL, address);
                long next = compute(t, op, old, src, cmp);
                if (next == old || LONG_CAS.compareAndSet(ALL, address, old, next)) {
                    return old;
                }
            }
        }
        long word = address & ~3L;
        int shift = LITTLE ? (int) (address - word) * 8 : (int) (4 - size - (address - word)) * 8;
        long mask = size == 4 ? 0xffff_ffffL : (1L << (size * 8)) - 1;
        while (true) {
            int w = (int) INT_CAS.getVolatile(ALL, word);
            long old = (w >>> shift) & mask;
            long next = compute(t, op, old, src, cmp) & mask;
            int nw = (int) ((w & ~(mask << shift)) | (next << shift));
            if (next == old || INT_CAS.compareAndSet(ALL, word, w, nw)) {
                return old;
            }
        }
    }

    /** One element, the caller holding its lock. */
    private static void applyPlain(AtomicDatatype t, AtomicOp op, MemorySegment target, long at, MemorySegment src,
                                   long srcAt, MemorySegment cmp, long cmpAt, MemorySegment result, long resultAt) {
        if (result != null) {
            MemorySegment.copy(target, at, result, resultAt, t.size());
        }
        if (complex(t)) {
            ComplexUpdate.apply(t == AtomicDatatype.FLOAT_COMPLEX, op, target, at, src, srcAt, cmp, cmpAt);
            return;
        }
        long old = load(t, target, at);
        long next = compute(t, op, old, src == null ? 0 : load(t, src, srcAt), cmp == null ? 0 : load(t, cmp, cmpAt));
        if (next != old) {
            store(t, target, at, next);
        }
    }

    /** An element's bits, zero-extended. */
    static long load(AtomicDatatype t, MemorySegment s, long at) {
        return switch (t.size()) {
            case 1 -> s.get(BYTE, at) & 0xffL;
            case 2 -> s.get(SHORT, at) & 0xffffL;
            case 4 -> s.get(INT, at) & 0xffff_ffffL;
            default -> s.get(LONG, at);
        };
    }

    static void store(AtomicDatatype t, MemorySegment s, long at, long bits) {
        switch (t.size()) {
            case 1 -> s.set(BYTE, at, (byte) bits);
            case 2 -> s.set(SHORT, at, (short) bits);
            case 4 -> s.set(INT, at, (int) bits);
            default -> s.set(LONG, at, bits);
        }
    }

    /**
     * The new bits of a target element {@code dst} under {@code op} with operand {@code src} and compare operand
     * {@code cmp} (all zero-extended bits of the datatype).
     */
    static long compute(AtomicDatatype t, AtomicOp op, long dst, long src, long cmp) {
        return switch (op) {
            case MIN -> less(t, src, dst) ? src : dst;
            case MAX -> less(t, dst, src) ? src : dst;
            case SUM -> arith(t, dst, src, false);
            case PROD -> arith(t, dst, src, true);
            case LOR -> bool(t, truth(t, dst) || truth(t, src));
            case LAND -> bool(t, truth(t, dst) && truth(t, src));
            case LXOR -> bool(t, truth(t, dst) != truth(t, src));
            case BOR -> dst | src;
            case BAND -> dst & src;
            case BXOR -> dst ^ src;
            case ATOMIC_READ -> dst;
            case ATOMIC_WRITE -> src;
            case CSWAP -> equal(t, cmp, dst) ? src : dst;
            case CSWAP_NE -> equal(t, cmp, dst) ? dst : src;
            case CSWAP_LE -> less(t, cmp, dst) || equal(t, cmp, dst) ? src : dst;
            case CSWAP_LT -> less(t, cmp, dst) ? src : dst;
            case CSWAP_GE -> less(t, dst, cmp) || equal(t, cmp, dst) ? src : dst;
            case CSWAP_GT -> less(t, dst, cmp) ? src : dst;
            case MSWAP -> (src & cmp) | (dst & ~cmp);
        };
    }

    /** The value of integer bits, sign-extended for the signed types. */
    private static long signed(AtomicDatatype t, long bits) {
        return switch (t) {
            case INT8 -> (byte) bits;
            case INT16 -> (short) bits;
            case INT32 -> (int) bits;
            default -> bits;
        };
    }

    /** {@code a < b} as C compares the datatype (false when a float is NaN). */
    private static boolean less(AtomicDatatype t, long a, long b) {
        return switch (t) {
            case FLOAT -> Float.intBitsToFloat((int) a) < Float.intBitsToFloat((int) b);
            case DOUBLE -> Double.longBitsToDouble(a) < Double.longBitsToDouble(b);
            case UINT64 -> Long.compareUnsigned(a, b) < 0;
            default -> signed(t, a) < signed(t, b);
        };
    }

    private static boolean equal(AtomicDatatype t, long a, long b) {
        return switch (t) {
            case FLOAT -> Float.intBitsToFloat((int) a) == Float.intBitsToFloat((int) b);
            case DOUBLE -> Double.longBitsToDouble(a) == Double.longBitsToDouble(b);
            default -> a == b;
        };
    }

    private static boolean truth(AtomicDatatype t, long bits) {
        return switch (t) {
            case FLOAT -> Float.intBitsToFloat((int) bits) != 0;
            case DOUBLE -> Double.longBitsToDouble(bits) != 0;
            default -> bits != 0;
        };
    }

    private static long bool(AtomicDatatype t, boolean v) {
        return switch (t) {
            case FLOAT -> Float.floatToRawIntBits(v ? 1f : 0f) & 0xffff_ffffL;
            case DOUBLE -> Double.doubleToRawLongBits(v ? 1d : 0d);
            default -> v ? 1 : 0;
        };
    }

    private static long arith(AtomicDatatype t, long a, long b, boolean product) {
        return switch (t) {
            case FLOAT -> {
                float x = Float.intBitsToFloat((int) a);
                float y = Float.intBitsToFloat((int) b);
                yield Float.floatToRawIntBits(product ? x * y : x + y) & 0xffff_ffffL;
            }
            case DOUBLE -> {
                double x = Double.longBitsToDouble(a);
                double y = Double.longBitsToDouble(b);
                yield Double.doubleToRawLongBits(product ? x * y : x + y);
            }
            default -> {
                long v = product ? a * b : a + b;
                yield t.size() == 8 ? v : v & ((1L << (t.size() * 8)) - 1);
            }
        };
    }
}
