package io.jfabric.util;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** The libc calls of a poll(2) sleep with an eventfd to end it ({@link FdPoll}, {@link FdWatcher}). */
final class PollCalls {
    /** {@code struct pollfd { int fd; short events; short revents; }} of {@code <poll.h>}. */
    static final long POLLFD_SIZE = 8;
    static final long EVENTS = 4;
    static final long REVENTS = 6;
    static final short POLLIN = 1;
    static final short POLLNVAL = 32;
    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;

    private static final Linker LINKER = Linker.nativeLinker();
    static final MethodHandle POLL = find("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    static final MethodHandle EVENTFD = find("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle READ = find("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle WRITE = find("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle CLOSE = find("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    /** 1, what a wake-up adds to an eventfd's count; never freed, so a late writer cannot touch freed memory. */
    private static final MemorySegment ONE = Arena.global().allocate(JAVA_LONG);

    static {
        ONE.set(JAVA_LONG, 0, 1L);
    }

    private PollCalls() {
    }

    /** Adds one to {@code efd}'s count, ending a poll(2) that waits on it. */
    static void signal(int efd) {
        try {
            long unused = (long) WRITE.invokeExact(efd, ONE, 8L);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static MethodHandle find(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), fd);
    }

    /** A non-blocking, close-on-exec eventfd, or -1 when none can be made. */
    static int eventfd() {
        try {
            return (int) EVENTFD.invokeExact(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
