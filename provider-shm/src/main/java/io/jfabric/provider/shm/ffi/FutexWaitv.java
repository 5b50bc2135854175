package io.jfabric.provider.shm.ffi;

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
 * {@code futex_waitv(2)} (Linux 5.16+): one sleep on up to {@link #MAX} 32-bit words in shared mappings, ended
 * by a {@code FUTEX_WAKE} on any of them. Lets a thread sleep on the doorbells of several shm endpoints at once.
 *
 * <p>Each instance owns its vector and timespec memory: not thread-safe; the caller serialises. As {@link Futex},
 * a wait does not capture errno; only the one-time probe for the call does.
 */
public final class FutexWaitv implements AutoCloseable {
    /** The kernel's limit on words per call (FUTEX_WAITV_MAX). */
    public static final int MAX = 128;

    private static final long SYS_FUTEX_WAITV = sysFutexWaitv();
    /** struct futex_waitv { u64 val; u64 uaddr; u32 flags; u32 reserved; }. */
    private static final long ENTRY = 24;
    /** FUTEX2_SIZE_U32, without FUTEX2_PRIVATE: the words are shared between processes. */
    private static final int FUTEX2_SIZE_U32 = 0x02;
    private static final long CLOCK_MONOTONIC = 1;
    /** Timeouts from here on (over a day) are waits without a limit, so that the deadline cannot overflow. */
    private static final long FOREVER = 86_400_000_000_000L;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** long syscall(SYS_futex_waitv, waiters, nr_futexes, flags, timeout, clockid). */
    private static final MethodHandle SYSCALL;
    /** The same, capturing errno: the probe tells ENOSYS (no such call) from EINVAL (an empty vector). */
    private static final MethodHandle PROBE;
    private static volatile Boolean works;

    static {
        Linker linker = Linker.nativeLinker();
        MemorySegment fn = linker.defaultLookup().findOrThrow("syscall");
        FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG);
        SYSCALL = linker.downcallHandle(fn, fd, Linker.Option.firstVariadicArg(1));
        PROBE = linker.downcallHandle(fn, fd, Linker.Option.firstVariadicArg(1),
                Linker.Option.captureCallState("errno"));
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment vector = arena.allocate(ENTRY * MAX, 8);
    private final MemorySegment timespec = arena.allocate(16, 8);

    private static long sysFutexWaitv() {
        String arch = System.getProperty("os.arch");
        return switch (arch) {
            case "amd64", "x86_64", "aarch64", "riscv64" -> 449;
            default -> -1;
        };
    }

    /** Whether the kernel has futex_waitv (asked once: an empty call answers EINVAL where it exists). */
    public static boolean supported() {
        Boolean w = works;
        if (w == null) {
            w = SYS_FUTEX_WAITV >= 0 && Futex.supported() && probe();
            works = w;
        }
        return w;
    }

    private static boolean probe() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            long rc = (long) PROBE.invokeExact(state, SYS_FUTEX_WAITV, 0L, 0L, 0L, 0L, CLOCK_MONOTONIC);
            return rc >= 0 || (int) ERRNO.get(state, 0L) != Errno.ENOSYS;
        } catch (Throwable t) {
            throw new IllegalStateException("futex_waitv probe failed", t);
        }
    }

    /** Sets word {@code i} of the vector: sleep while the int at {@code address} equals {@code expected}. */
    public void set(int i, long address, int expected) {
        long at = i * ENTRY;
        vector.set(ValueLayout.JAVA_LONG, at, expected & 0xffff_ffffL);
        vector.set(ValueLayout.JAVA_LONG, at + 8, address);
        vector.set(ValueLayout.JAVA_INT, at + 16, FUTEX2_SIZE_U32);
        vector.set(ValueLayout.JAVA_INT, at + 20, 0);
    }

    /**
     * Sleeps on the first {@code count} words {@linkplain #set set} until one is woken or {@code timeoutNanos}
     * pass (negative: no limit).
     *
     * @return the index of the woken word, or -1 when none was: a word already differed, the time ran out, a
     *     signal came, or there is no futex_waitv here ({@link #supported})
     */
    public int await(int count, long timeoutNanos) {
        if (count < 1 || count > MAX) {
            throw new IllegalArgumentException("futex_waitv on " + count + " words; 1.." + MAX + " allowed");
        }
        if (SYS_FUTEX_WAITV < 0) {
            return -1;
        }
        long ts = 0;
        if (timeoutNanos >= 0 && timeoutNanos < FOREVER) {
            // an absolute CLOCK_MONOTONIC time, the clock System.nanoTime reads on Linux
            long at = System.nanoTime() + timeoutNanos;
            timespec.set(ValueLayout.JAVA_LONG, 0, at / 1_000_000_000L);
            timespec.set(ValueLayout.JAVA_LONG, 8, at % 1_000_000_000L);
            ts = timespec.address();
        }
        long rc;
        try {
            rc = (long) SYSCALL.invokeExact(SYS_FUTEX_WAITV, vector.address(), (long) count, 0L, ts, CLOCK_MONOTONIC);
        } catch (Throwable t) {
            throw new IllegalStateException("futex_waitv downcall failed", t);
        }
        return rc < 0 ? -1 : (int) rc;
    }

    @Override
    public void close() {
        arena.close();
    }
}
