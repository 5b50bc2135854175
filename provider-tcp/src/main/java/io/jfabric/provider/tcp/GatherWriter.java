package io.jfabric.provider.tcp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One connection's {@code writev(2)} on the socket's descriptor, so a frame's header and payload leave in one
 * system call as libfabric's {@code sendmsg} sends them. NIO's own gathering write allocates a releaser per
 * call for every buffer backed by a memory segment, and two writes send the 16-byte header as a segment of
 * its own (TCP_NODELAY). The iovec array and the errno slot are allocated once per connection.
 * The descriptor is looked up in /proc on the first large frame (control path, once per connection);
 * when that fails the connection writes one buffer at a time through NIO, as before.
 */
final class GatherWriter {
    private static final int EAGAIN = 11;
    private static final int EINTR = 4;
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private final int fd;
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment iov;
    private final MemorySegment errno;

    private GatherWriter(int fd, int maxIov) {
        this.fd = fd;
        this.iov = arena.allocate(16L * maxIov, 8);
        this.errno = arena.allocate(CAPTURE);
    }

    /** A writer for {@code ch}, or null when its descriptor cannot be found (the caller keeps NIO's writes). */
    static GatherWriter of(SocketChannel ch, int maxIov) {
        try {
            int fd = UserTimeout.descriptorOf(ch);
            return fd < 0 ? null : new GatherWriter(fd, maxIov);
        } catch (IOException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * Writes {@code bufs[from..to)} whose native addresses are {@code addrs[from..to)} (each at the buffer's
     * position) in one writev, and moves the buffers' positions past what was taken.
     *
     * @return bytes written, 0 when the socket buffer is full
     * @throws IOException when the kernel refuses the write (reset, closed, bad address)
     */
    long write(ByteBuffer[] bufs, long[] addrs, int from, int to) throws IOException {
        int n = 0;
        for (int i = from; i < to; i++) {
            int rem = bufs[i].remaining();
            if (rem > 0) {
                iov.set(ValueLayout.JAVA_LONG, 16L * n, addrs[i]);
                iov.set(ValueLayout.JAVA_LONG, 16L * n + 8, rem);
                n++;
            }
        }
        if (n == 0) {
            return 0;
        }
        long w;
        do {
            try {
                w = (long) Native.WRITEV.invokeExact(errno, fd, iov, n);
            } catch (Throwable t) {
                throw new IOException("writev failed: " + t, t);
            }
        } while (w < 0 && (int) ERRNO.get(errno, 0L) == EINTR);
        if (w < 0) {
            int err = (int) ERRNO.get(errno, 0L);
            if (err == EAGAIN) {
                return 0;
            }
            throw new IOException("writev: errno " + err);
        }
        long left = w;
        for (int i = from; i < to && left > 0; i++) {
            int k = (int) Math.min(left, bufs[i].remaining());
            bufs[i].position(bufs[i].position() + k);
            left -= k;
        }
        return w;
    }

    /** writev(2) with errno captured, linked on first use. */
    private static final class Native {
        static final MethodHandle WRITEV = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("writev").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                        ValueLayout.JAVA_INT),
                Linker.Option.captureCallState("errno"));
    }
}
