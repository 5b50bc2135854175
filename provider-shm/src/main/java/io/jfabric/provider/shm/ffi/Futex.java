package io.jfabric.provider.shm.ffi;

import io.jfabric.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code futex(2)} wait and wake on a 32-bit word, through libc's {@code syscall(2)}.
 *
 * <p>Used on a word inside a shared mapping, so the operations are the shared (non-private)
 * forms: a waiter in one process is woken by a waker in another. libfabric's shm provider
 * has no blocking wait of its own (its sread spins or uses a wait set); this is how jfabric's
 * shm sread sleeps without spinning.
 *
 * <p>{@link #await} uses pre-allocated timespec memory, so an instance is not thread-safe; {@link #wake}
 * touches no instance memory and may be called from any thread.
 *
 * <p>Neither captures errno: every caller re-checks its own state after a wait, whyever it ended, and a capturing
 * downcall that the JIT leaves out of line allocates per call, which a thread that sleeps between messages
 * would pay per message.
 */
public final class Futex implements AutoCloseable {

    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final long SYS_FUTEX = sysFutex();

    /** long syscall(long nr, ...) called as syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3). */
    private static final MethodHandle SYSCALL;

    static {
        Linker linker = Linker.nativeLinker();
        MemorySegment fn = linker.defaultLookup().findOrThrow("syscall");
        FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
        SYSCALL = linker.downcallHandle(fn, fd, Linker.Option.firstVariadicArg(1));
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment timespec = arena.allocate(16, 8);

    private static long sysFutex() {
        String arch = System.getProperty("os.arch");
        return switch (arch) {
            case "amd64", "x86_64" -> 202;
            case "aarch64" -> 98;
            case "riscv64" -> 98;
            default -> -1;
        };
    }

    /** Whether futex is usable on this platform (Linux on x86-64, aarch64 or riscv64). */
    public static boolean supported() {
        return SYS_FUTEX >= 0 && System.getProperty("os.name", "").startsWith("Linux");
    }

    /**
     * Sleeps while the int at {@code address} equals {@code expected}, for at most
     * {@code timeoutNanos} (negative: no limit).
     *
     * @return whether a wake ended the wait: false when the word already differed, the time ran out, a signal
     *     came, or there is no futex here ({@link #supported})
     */
    public boolean await(long address, int expected, long timeoutNanos) {
        if (SYS_FUTEX < 0) {
            return false;
        }
        long ts = 0;
        if (timeoutNanos >= 0) {
            timespec.set(ValueLayout.JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
            timespec.set(ValueLayout.JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
            ts = timespec.address();
        }
        long rc;
        try {
            rc = (long) SYSCALL.invokeExact(SYS_FUTEX, address, (long) FUTEX_WAIT, (long) expected, ts, 0L, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("futex wait downcall failed", t);
        }
        return rc >= 0;
    }

    /**
     * Wakes up to {@code count} waiters on the int at {@code address}.
     *
     * @return the number woken, or a negative value on failure
     */
    public static int wake(long address, int count) {
        if (SYS_FUTEX < 0) {
            return -Errno.ENOSYS;
        }
        try {
            return (int) (long) SYSCALL.invokeExact(SYS_FUTEX, address, (long) FUTEX_WAKE,
                    (long) count, 0L, 0L, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("futex wake downcall failed", t);
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
