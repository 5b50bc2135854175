package io.jfabric.provider.verbs.ffi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code <fcntl.h>} (libc): the completion channel's fd is made non-blocking (as libfabric's verbs does for
 * FI_WAIT_FD). The eventfd that ends a sleep on it is provider-util's {@link io.jfabric.util.FdPoll}.
 */
@SuppressWarnings("unused")
public final class fd_h {
    private fd_h() {
    }

    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 04000;

    private static final Linker LINKER = Linker.nativeLinker();

    private static MethodHandle find(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd);
    }

    private static final class handles {
        static final MethodHandle FCNTL = find("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    }

    /** {@code int fcntl(int fd, int cmd, int arg)}. */
    public static int fcntl(int fd, int cmd, int arg) {
        try {
            return (int) handles.FCNTL.invokeExact(fd, cmd, arg);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
