package io.jfabric.provider.libfabric.ffi;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The fi_atomic(3) downcalls whose arity {@link DataCalls} has no handle for: fi_atomic and fi_atomicv (10 words),
 * fi_fetch_atomic (12), fi_fetch_atomicv (13), fi_compare_atomic (14) and fi_compare_atomicv (16), in DataCalls'
 * address form. Their {@code enum fi_datatype}
 * and {@code enum fi_op} arguments go as 64-bit words too: in the LP64 ABI an int argument takes a whole register
 * or stack slot, of which the callee reads the low half (little-endian), so the word's value is the enum's.
 */
public final class AtomicCalls {
    private AtomicCalls() {}

    private static final MethodHandle W10 = Linker.nativeLinker().downcallHandle(DataCalls.words(10));
    private static final MethodHandle W12 = Linker.nativeLinker().downcallHandle(DataCalls.words(12));
    private static final MethodHandle W13 = Linker.nativeLinker().downcallHandle(DataCalls.words(13));
    private static final MethodHandle W14 = Linker.nativeLinker().downcallHandle(DataCalls.words(14));
    private static final MethodHandle W16 = Linker.nativeLinker().downcallHandle(DataCalls.words(16));

    /** fi_ops_atomic's member offsets: {@code size_t size}, then the thirteen functions in header order. */
    public static final long WRITE = 8;
    public static final long WRITEV = 16;
    public static final long WRITEMSG = 24;
    public static final long INJECT = 32;
    public static final long READWRITE = 40;
    public static final long READWRITEV = 48;
    public static final long READWRITEMSG = 56;
    public static final long COMPWRITE = 64;
    public static final long COMPWRITEV = 72;
    public static final long COMPWRITEMSG = 80;
    public static final long WRITEVALID = 88;
    public static final long READWRITEVALID = 96;
    public static final long COMPWRITEVALID = 104;

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g, long h,
                            long i, long j) {
        try {
            return (long) W10.invokeExact(fn, a, b, c, d, e, f, g, h, i, j);
        } catch (Throwable t) {
            throw new AssertionError("a downcall threw", t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g, long h,
                            long i, long j, long k, long l) {
        try {
            return (long) W12.invokeExact(fn, a, b, c, d, e, f, g, h, i, j, k, l);
        } catch (Throwable t) {
            throw new AssertionError("a downcall threw", t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g, long h,
                            long i, long j, long k, long l, long m, long n) {
        try {
            return (long) W14.invokeExact(fn, a, b, c, d, e, f, g, h, i, j, k, l, m, n);
        } catch (Throwable t) {
            throw new AssertionError("a downcall threw", t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g, long h,
                            long i, long j, long k, long l, long m) {
        try {
            return (long) W13.invokeExact(fn, a, b, c, d, e, f, g, h, i, j, k, l, m);
        } catch (Throwable t) {
            throw new AssertionError("a downcall threw", t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g, long h,
                            long i, long j, long k, long l, long m, long n, long o, long p) {
        try {
            return (long) W16.invokeExact(fn, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p);
        } catch (Throwable t) {
            throw new AssertionError("a downcall threw", t);
        }
    }
}
