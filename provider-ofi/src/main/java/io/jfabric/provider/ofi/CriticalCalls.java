package io.jfabric.provider.ofi;

import io.jfabric.provider.ofi.ffi.fi_ops_cq;
import io.jfabric.provider.ofi.ffi.fi_ops_msg;
import io.jfabric.provider.ofi.ffi.fi_ops_tagged;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The data-path calls through libfabric's ops tables (post a send, an inject, a receive; read a CQ) as
 * {@link Linker.Option#critical critical} downcalls: the thread stays in Java state, with no transition to native
 * and back, which is a measurable share of a sub-microsecond shm message. They qualify: each returns promptly
 * (libfabric's posts and CQ reads never block: a full queue is -FI_EAGAIN, a poll has a zero timeout) and none
 * calls back into Java. The generated bindings keep the ordinary handles for everything else.
 */
final class CriticalCalls {
    private CriticalCalls() {
    }

    private static final MethodHandle CQ_READ = critical(fi_ops_cq.read.descriptor());
    private static final MethodHandle CQ_READFROM = critical(fi_ops_cq.readfrom.descriptor());
    private static final MethodHandle SEND = critical(fi_ops_msg.send.descriptor());
    private static final MethodHandle INJECT = critical(fi_ops_msg.inject.descriptor());
    private static final MethodHandle RECV = critical(fi_ops_msg.recv.descriptor());
    private static final MethodHandle TSEND = critical(fi_ops_tagged.send.descriptor());
    private static final MethodHandle TINJECT = critical(fi_ops_tagged.inject.descriptor());
    private static final MethodHandle TRECV = critical(fi_ops_tagged.recv.descriptor());

    private static MethodHandle critical(FunctionDescriptor d) {
        return Linker.nativeLinker().downcallHandle(d, Linker.Option.critical(false));
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new AssertionError("a downcall threw a checked exception", t);
    }

    static long cqRead(MemorySegment fn, MemorySegment cq, MemorySegment buf, long count) {
        try {
            return (long) CQ_READ.invokeExact(fn, cq, buf, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long cqReadFrom(MemorySegment fn, MemorySegment cq, MemorySegment buf, long count, MemorySegment src) {
        try {
            return (long) CQ_READFROM.invokeExact(fn, cq, buf, count, src);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long send(MemorySegment fn, MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long dest,
                     MemorySegment context) {
        try {
            return (long) SEND.invokeExact(fn, ep, buf, len, desc, dest, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long inject(MemorySegment fn, MemorySegment ep, MemorySegment buf, long len, long dest) {
        try {
            return (long) INJECT.invokeExact(fn, ep, buf, len, dest);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long recv(MemorySegment fn, MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long src,
                     MemorySegment context) {
        try {
            return (long) RECV.invokeExact(fn, ep, buf, len, desc, src, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long tsend(MemorySegment fn, MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long dest,
                      long tag, MemorySegment context) {
        try {
            return (long) TSEND.invokeExact(fn, ep, buf, len, desc, dest, tag, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long tinject(MemorySegment fn, MemorySegment ep, MemorySegment buf, long len, long dest, long tag) {
        try {
            return (long) TINJECT.invokeExact(fn, ep, buf, len, dest, tag);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long trecv(MemorySegment fn, MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long src,
                      long tag, long ignore, MemorySegment context) {
        try {
            return (long) TRECV.invokeExact(fn, ep, buf, len, desc, src, tag, ignore, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
