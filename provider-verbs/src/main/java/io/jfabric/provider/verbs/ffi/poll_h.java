package io.jfabric.provider.verbs.ffi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <poll.h>} (libc): waiting on the rdma_cm event channel's and the completion channel's file
 * descriptors without spinning, and checking they are readable before the blocking
 * {@code rdma_get_cm_event}/{@code ibv_get_cq_event}. Errno is captured (EINTR).
 */
@SuppressWarnings("unused")
public final class poll_h {
    private poll_h() {
    }

    public static final int POLLIN = 1;

    private static final class poll$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(Linker.nativeLinker().defaultLookup(), "poll",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }

    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)}: ready count, 0 on timeout, -1 with errno. */
    public static int poll(MemorySegment errnoState, MemorySegment fds, long nfds, int timeoutMs) {
        try {
            return (int) poll$.HANDLE.invokeExact(errnoState, fds, nfds, timeoutMs);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
