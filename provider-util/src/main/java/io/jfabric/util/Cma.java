package io.jfabric.util;

import io.jfabric.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Cross-memory attach: {@code process_vm_readv(2)} and {@code process_vm_writev(2)} through FFM.
 *
 * <p>Moves large payloads directly between two processes' address spaces in one copy: shm's CMA
 * protocol (libfabric's shm "iov" protocol) and rxm's same-host rendezvous use it. The kernel allows it only when the
 * caller may ptrace the target (same user, and no Yama or container restriction), which is why
 * {@link #probe} exists.
 *
 * <p>One instance holds its own pre-allocated iovec and errno memory, so a call allocates
 * nothing; an instance is therefore not thread-safe (use one per progress context).
 */
public final class Cma implements AutoCloseable {

    /** struct iovec { void *iov_base; size_t iov_len; } on LP64. */
    static final StructLayout IOVEC = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("iov_base"),
            ValueLayout.JAVA_LONG.withName("iov_len"));

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /*
     * Each call has two handles. The data path calls the plain one, and only a call that failed is made again
     * through the one that captures errno, to learn why: a call that copied nothing changed nothing, so repeating it
     * is safe. A capturing downcall slices its capture segment on every call and relies on the JIT inlining the whole
     * native-call chain to drop the slice; in a deep receive path (shm's split copy under progress) it did not always,
     * and each CMA message then allocated 50-80 B (ShmEndpointTest.warmDataPathAllocatesNothing, one run in ten).
     */
    private static final MethodHandle READV;
    private static final MethodHandle WRITEV;
    private static final MethodHandle READV_ERRNO;
    private static final MethodHandle WRITEV_ERRNO;
    private static final Throwable UNAVAILABLE;

    static {
        MethodHandle[] h = new MethodHandle[4];
        Throwable failure = null;
        try {
            Linker linker = Linker.nativeLinker();
            // ssize_t fn(pid_t pid, const struct iovec *local, unsigned long liovcnt,
            //            const struct iovec *remote, unsigned long riovcnt, unsigned long flags)
            FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                    ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
            Linker.Option errno = Linker.Option.captureCallState("errno");
            MemorySegment readv = linker.defaultLookup().findOrThrow("process_vm_readv");
            MemorySegment writev = linker.defaultLookup().findOrThrow("process_vm_writev");
            h[0] = linker.downcallHandle(readv, fd);
            h[1] = linker.downcallHandle(writev, fd);
            h[2] = linker.downcallHandle(readv, fd, errno);
            h[3] = linker.downcallHandle(writev, fd, errno);
        } catch (Throwable t) {
            failure = t;
        }
        READV = h[0];
        WRITEV = h[1];
        READV_ERRNO = h[2];
        WRITEV_ERRNO = h[3];
        UNAVAILABLE = failure;
    }

    /** Iovecs a vectored read takes on each side ({@link #readVector}). */
    public static final int VECTOR_LIMIT = 16;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment localVector = arena.allocate(IOVEC, VECTOR_LIMIT);
    private final MemorySegment remoteVector = arena.allocate(IOVEC, VECTOR_LIMIT);
    private final MemorySegment callState = arena.allocate(CALL_STATE);

    /** Whether the C library offers the calls at all (a reason is in {@link #unavailableReason()}). */
    public static boolean linked() {
        return UNAVAILABLE == null;
    }

    public static String unavailableReason() {
        return UNAVAILABLE == null ? null : UNAVAILABLE.toString();
    }

    /**
     * Copies exactly {@code length} bytes from {@code remoteAddress} in process {@code pid} to {@code localAddress}
     * here, repeating partial transfers.
     *
     * @return 0, or a negative errno (EPERM when ptrace is refused, ESRCH when the process is gone, EFAULT for a
     *     bad address)
     */
    public int readFully(int pid, long localAddress, long remoteAddress, long length) {
        return copy(false, pid, localAddress, remoteAddress, length);
    }

    /** Writes exactly {@code length} bytes, repeating partial transfers; 0 or a negative errno. */
    public int writeFully(int pid, long localAddress, long remoteAddress, long length) {
        return copy(true, pid, localAddress, remoteAddress, length);
    }

    /**
     * {@link #writeFully} when {@code write}, else {@link #readFully}: one contiguous range each side, as the first
     * piece of a vectored call.
     */
    public int copy(boolean write, int pid, long localAddress, long remoteAddress, long length) {
        if (length == 0) {
            return 0;
        }
        localPiece(0, localAddress, length);
        remotePiece(0, remoteAddress, length);
        return vector(write, pid, 1, 1);
    }

    /** What a call that copied {@code n <= 0} bytes answers: its errno, or EFAULT when it copied nothing. */
    private int failure(long n) {
        return n < 0 ? -(int) ERRNO.get(callState, 0L) : -Errno.EFAULT;
    }

    /** Sets local iovec {@code i} of the next {@link #readVector} (the single-range calls use iovec 0 too). */
    public void localPiece(int i, long address, long length) {
        localVector.set(ValueLayout.JAVA_LONG, 16L * i, address);
        localVector.set(ValueLayout.JAVA_LONG, 16L * i + 8, length);
    }

    /** Sets remote iovec {@code i} of the next {@link #readVector}. */
    public void remotePiece(int i, long address, long length) {
        remoteVector.set(ValueLayout.JAVA_LONG, 16L * i, address);
        remoteVector.set(ValueLayout.JAVA_LONG, 16L * i + 8, length);
    }

    /**
     * Sets the local pieces of the next vectored call to bytes {@code [skip, skip + n)} of the buffer list
     * {@code segments} (its first {@code count}), one piece per buffer touched.
     *
     * @return the number of pieces set, or -1 when the list cannot be named by address that way: a buffer the
     *     range touches is heap memory, the range needs more than {@link #VECTOR_LIMIT} pieces, or the list ends
     *     before it does
     */
    public int localSegments(MemorySegment[] segments, int count, long skip, long n) {
        int pieces = 0;
        for (int i = 0; i < count && n > 0; i++) {
            MemorySegment s = segments[i];
            long size = s.byteSize();
            if (skip >= size) {
                skip -= size;
                continue;
            }
            if (!s.isNative() || pieces == VECTOR_LIMIT) {
                return -1;
            }
            long k = Math.min(size - skip, n);
            localPiece(pieces++, s.address() + skip, k);
            n -= k;
            skip = 0;
        }
        return n == 0 ? pieces : -1;
    }

    /**
     * Copies the {@code remoteCount} remote pieces of {@code pid} into the {@code localCount} local pieces set
     * before (at most {@link #VECTOR_LIMIT} each, both adding up to the same length) with one process_vm_readv,
     * repeating it over what is left after a partial transfer.
     *
     * @return 0, or a negative errno
     */
    public int readVector(int pid, int localCount, int remoteCount) {
        return vector(false, pid, localCount, remoteCount);
    }

    /**
     * {@link #readVector}, or when {@code write} the other way: the local pieces into the remote ones, with
     * process_vm_writev.
     */
    public int vector(boolean write, int pid, int localCount, int remoteCount) {
        if (READV == null) {
            return -Errno.ENOSYS;
        }
        int l = 0;
        int r = 0;
        while (l < localCount && r < remoteCount) {
            // a slice only after a partial transfer: the first call passes the vectors themselves
            MemorySegment lv = l == 0 ? localVector : localVector.asSlice(16L * l);
            MemorySegment rv = r == 0 ? remoteVector : remoteVector.asSlice(16L * r);
            long ln = localCount - l;
            long rn = remoteCount - r;
            long n;
            try {
                n = write
                        ? (long) WRITEV.invokeExact(pid, lv, ln, rv, rn, 0L)
                        : (long) READV.invokeExact(pid, lv, ln, rv, rn, 0L);
                if (n < 0) {
                    n = write
                            ? (long) WRITEV_ERRNO.invokeExact(callState, pid, lv, ln, rv, rn, 0L)
                            : (long) READV_ERRNO.invokeExact(callState, pid, lv, ln, rv, rn, 0L);
                }
            } catch (Throwable t) {
                throw new IllegalStateException("process_vm_readv/writev downcall failed", t);
            }
            if (n <= 0) {
                return failure(n);
            }
            l = consume(localVector, l, localCount, n);
            r = consume(remoteVector, r, remoteCount, n);
        }
        return l < localCount || r < remoteCount ? -Errno.EIO : 0; // the two sides did not add up
    }

    /** Drops {@code n} bytes from the front of iovecs {@code from..count}; returns the first one left. */
    private static int consume(MemorySegment v, int from, int count, long n) {
        int i = from;
        while (i < count && n > 0) {
            long len = v.get(ValueLayout.JAVA_LONG, 16L * i + 8);
            if (n < len) {
                v.set(ValueLayout.JAVA_LONG, 16L * i, v.get(ValueLayout.JAVA_LONG, 16L * i) + n);
                v.set(ValueLayout.JAVA_LONG, 16L * i + 8, len - n);
                return i;
            }
            n -= len;
            i++;
        }
        while (i < count && v.get(ValueLayout.JAVA_LONG, 16L * i + 8) == 0) {
            i++;
        }
        return i;
    }

    /**
     * Tests whether this process may read the memory of {@code pid}: reads {@code expected.byteSize()}
     * bytes at {@code remoteAddress} and compares them with {@code expected}. libfabric's
     * {@code smr_cma_check} does the same at peer setup, because ptrace restrictions (Yama,
     * containers, non-dumpable processes) refuse CMA even between processes of one user.
     *
     * @return 0 when CMA works, otherwise a negative errno (EIO if the bytes differ)
     */
    public int probe(int pid, long remoteAddress, MemorySegment expected) {
        if (!linked()) {
            return -Errno.ENOSYS;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(expected.byteSize(), 8);
            int rc = readFully(pid, buf.address(), remoteAddress, expected.byteSize());
            if (rc < 0) {
                return rc;
            }
            return buf.mismatch(expected) == -1 ? 0 : -Errno.EIO;
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
