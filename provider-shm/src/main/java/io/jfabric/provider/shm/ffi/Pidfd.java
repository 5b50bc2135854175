package io.jfabric.provider.shm.ffi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Process file descriptors ({@code pidfd_open(2)}, {@code pidfd_send_signal(2)}, Linux 5.3+): a
 * handle on one exact process, so asking "is it still alive?" costs one syscall, allocates nothing
 * and can never be fooled by a recycled pid. libfabric's shm uses {@code kill(pid, 0)}, which a
 * recycled pid fools.
 */
public final class Pidfd {

    private static final long SYS_PIDFD_OPEN = 434;       // same number on x86-64, aarch64, riscv64
    private static final long SYS_PIDFD_SEND_SIGNAL = 424;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SYSCALL;
    /** The same syscall without errno capture: the JDK slices the capture segment on every captured call (40 B). */
    private static final MethodHandle SYSCALL_NO_ERRNO;
    private static final MethodHandle CLOSE;

    static {
        Linker linker = Linker.nativeLinker();
        SYSCALL = linker.downcallHandle(linker.defaultLookup().findOrThrow("syscall"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
        SYSCALL_NO_ERRNO = linker.downcallHandle(linker.defaultLookup().findOrThrow("syscall"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
        CLOSE = linker.downcallHandle(linker.defaultLookup().findOrThrow("close"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private Pidfd() {
    }

    /** Opens a pidfd for {@code pid}; returns the fd, or a negative errno (ESRCH: no such process, ENOSYS: old kernel). */
    public static int open(long pid, MemorySegment callState) {
        return (int) call(callState, SYS_PIDFD_OPEN, pid, 0, 0, 0);
    }

    /**
     * Whether the process behind {@code fd} is still running (signal 0 checks without sending).
     *
     * @param callState a segment of {@link #callStateSize()} bytes owned by the caller's thread
     * @return 0 if it runs, -ESRCH if it has exited, another negative errno on failure
     */
    public static int alive(int fd, MemorySegment callState) {
        long rc;
        try {
            rc = (long) SYSCALL_NO_ERRNO.invokeExact(SYS_PIDFD_SEND_SIGNAL, (long) fd, 0L, 0L, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("syscall downcall failed", t);
        }
        // the send path asks this often: only a failure pays for errno capture (signal 0 is idempotent)
        return rc == 0 ? 0 : (int) call(callState, SYS_PIDFD_SEND_SIGNAL, fd, 0, 0, 0);
    }

    public static long callStateSize() {
        return CALL_STATE.byteSize();
    }

    public static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException("close downcall failed", t);
        }
    }

    private static long call(MemorySegment callState, long nr, long a, long b, long c, long d) {
        long rc;
        try {
            rc = (long) SYSCALL.invokeExact(callState, nr, a, b, c, d);
        } catch (Throwable t) {
            throw new IllegalStateException("syscall downcall failed", t);
        }
        return rc < 0 ? -(int) ERRNO.get(callState, 0L) : rc;
    }
}
