package io.jfabric.provider.libfabric.ffi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * The data-path downcalls (fi_cq_read, fi_send, fi_recv, fi_inject and their tagged, RMA, iov and
 * msg forms) in address form: every argument and the result is a 64-bit word.
 *
 * <p>Why not the generated {@code fi_ops_*.invoke}: they take pointers as {@link MemorySegment}s, and
 * the linker acquires and releases the scope of every segment argument around the call. For a shared
 * arena (the libfabric provider's own argument memory, and most applications' buffers) that is two atomic
 * operations per argument per call. Handing the calls global-scoped segments instead took about 40 ns
 * off a self-sent message on libfabric:shm, most of the libfabric provider's overhead over C then (bench's
 * BridgeCallBench and bench/floors/bridge-calls.c; docs/performance.md).
 * The buffer of a data call must stay valid until its completion anyway (fi_msg(3)), long after
 * the call returns, so holding its scope for the call's duration protected nothing that libfabric
 * does not already leave to the application.
 *
 * <p>Every C signature routed here is made of pointers, size_t, ssize_t, fi_addr_t and uint64_t,
 * which are all one 64-bit word in the LP64 ABI (checked against the generated descriptors by
 * DataCallsTest, and the generated layouts against the headers by ProbeLayoutTest), so one handle
 * per arity serves them all. The function pointer stays a segment: it is global-scoped (read from an
 * ops table) and costs no acquire.
 */
public final class DataCalls {
    private DataCalls() {}

    /** The descriptor of a C function taking {@code arity} words and returning one. */
    public static FunctionDescriptor words(int arity) {
        MemoryLayout[] args = new MemoryLayout[arity];
        Arrays.fill(args, ValueLayout.JAVA_LONG);
        return FunctionDescriptor.of(ValueLayout.JAVA_LONG, args);
    }

    private static MethodHandle handle(int arity) {
        return Linker.nativeLinker().downcallHandle(words(arity));
    }

    private static final MethodHandle W3 = handle(3);
    private static final MethodHandle W4 = handle(4);
    private static final MethodHandle W5 = handle(5);
    private static final MethodHandle W6 = handle(6);
    private static final MethodHandle W7 = handle(7);
    private static final MethodHandle W8 = handle(8);
    private static final MethodHandle W9 = handle(9);

    private static AssertionError unexpected(Throwable t) {
        return new AssertionError("a downcall threw", t);
    }

    public static long call(MemorySegment fn, long a, long b, long c) {
        try {
            return (long) W3.invokeExact(fn, a, b, c);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d) {
        try {
            return (long) W4.invokeExact(fn, a, b, c, d);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e) {
        try {
            return (long) W5.invokeExact(fn, a, b, c, d, e);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f) {
        try {
            return (long) W6.invokeExact(fn, a, b, c, d, e, f);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g) {
        try {
            return (long) W7.invokeExact(fn, a, b, c, d, e, f, g);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g, long h) {
        try {
            return (long) W8.invokeExact(fn, a, b, c, d, e, f, g, h);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long call(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g, long h,
                            long i) {
        try {
            return (long) W9.invokeExact(fn, a, b, c, d, e, f, g, h, i);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }
}
