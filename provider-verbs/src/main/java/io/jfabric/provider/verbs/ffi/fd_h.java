package io.jfabric.provider.verbs.ffi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <fcntl.h>}, {@code <sys/eventfd.h>}, {@code <unistd.h>} (libc): the completion channel's fd is made
 * non-blocking (as libfabric's verbs does for FI_WAIT_FD), and an eventfd beside it lets Java end a poll(2) on
 * the channel (fi_cq_signal, a wait set's wakeup, an interrupt).
 */
@SuppressWarnings("unused")
public final class fd_h {
    private fd_h() {
    }

    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 04000;
    public static final int EFD_NONBLOCK = 04000;
    public static final int EFD_CLOEXEC = 02000000;

    private static final Linker LINKER = Linker.nativeLinker();

    private static MethodHandle find(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd);
    }

    private static final class handles {
        static final MethodHandle FCNTL = find("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        static final MethodHandle EVENTFD = find("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
        static final MethodHandle READ = find("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
        static final MethodHandle WRITE = find("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
        static final MethodHandle CLOSE = find("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    /** {@code int fcntl(int fd, int cmd, int arg)}. */
    public static int fcntl(int fd, int cmd, int arg) {
        try {
            return (int) handles.FCNTL.invokeExact(fd, cmd, arg);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code int eventfd(unsigned int initval, int flags)}: the fd, or -1. */
    public static int eventfd(int initval, int flags) {
        try {
            return (int) handles.EVENTFD.invokeExact(initval, flags);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code ssize_t read(int fd, void *buf, size_t count)}. */
    public static long read(int fd, MemorySegment buf, long count) {
        try {
            return (long) handles.READ.invokeExact(fd, buf, count);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code ssize_t write(int fd, const void *buf, size_t count)}. */
    public static long write(int fd, MemorySegment buf, long count) {
        try {
            return (long) handles.WRITE.invokeExact(fd, buf, count);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code int close(int fd)}. */
    public static int close(int fd) {
        try {
            return (int) handles.CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
