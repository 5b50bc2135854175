package io.jfabric.provider.tcp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection's data-path system calls made on the socket's descriptor instead of through NIO:
 * <ul>
 * <li>{@code writev(2)}, so a frame's header and payload leave in one call as libfabric's {@code sendmsg} sends
 *     them (NIO's gathering write allocates a releaser per call for every buffer backed by a memory segment,
 *     and two writes send the 16-byte header as a segment of its own under TCP_NODELAY);</li>
 * <li>{@code poll(2)}, {@code recv(2)} and {@code write(2)} of the connection's own staging buffers, the whole
 *     path of a small message: NIO wraps each call in its blocking bookkeeping and channel locks, which cost
 *     more than the system call itself when a spinning poll finds the socket empty.</li>
 * </ul>
 * The socket is non-blocking, recv is asked not to wait and poll has a zero timeout, so each call returns
 * promptly. They are ordinary downcalls, not {@link Linker.Option#critical critical} ones: each is a system
 * call (docs/design.md keeps critical for calls that make none). They do not capture errno, because a
 * captured call state allocates on every call. A recv that fails is taken as "nothing yet": an error on a TCP
 * socket (reset, user or keepalive timeout) also closes it, so the next recv finds the end of the stream, and
 * the socket's TCP state then tells an error (CLOSE) from the peer's orderly close (CLOSE_WAIT). A write that
 * fails is repeated once through the channel, which reports EAGAIN as 0 and anything else as the exception
 * NIO always gave. The iovec array, the pollfd and the tcp_info buffer are allocated once per connection.
 * The descriptor is looked up ({@link SocketDescriptor}, with this class's getsockname and getpeername) once the
 * connection is busy (see TcpConnection); when that fails the connection keeps NIO's calls.
 */
final class SocketCalls {
    private static final int MSG_DONTWAIT = 0x40;
    private static final short POLLIN = 0x1;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_INFO = 11;
    /** tcpi_state, the first byte of struct tcp_info: the socket was closed by an error, not by the peer's FIN. */
    private static final byte TCP_CLOSE = 7;

    private static final AtomicBoolean LINKING = new AtomicBoolean();

    private final SocketChannel ch;
    private final int fd;
    private final MemorySegment iov;
    private final MemorySegment pollFd;
    /** struct tcp_info's first bytes and its socklen_t, for {@link #closedByError}. */
    private final MemorySegment tcpInfo;
    private final long pollFdAddr;

    private SocketCalls(SocketChannel ch, int fd, int maxIov) {
        this.ch = ch;
        this.fd = fd;
        Arena arena = Arena.ofAuto();
        this.iov = arena.allocate(16L * maxIov, 8);
        this.pollFd = arena.allocate(8, 8); // struct pollfd { int fd; short events; short revents; }
        this.pollFd.set(ValueLayout.JAVA_INT, 0, fd);
        this.pollFd.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
        this.pollFdAddr = pollFd.address();
        this.tcpInfo = arena.allocate(16, 8);
    }

    /** The calls for {@code ch}, or null when its descriptor cannot be found (the caller keeps NIO's calls). */
    static SocketCalls of(SocketChannel ch, int maxIov) {
        try {
            Native.ready(); // a failed link (no native access) leaves the connection on NIO's calls
            int fd = SocketDescriptor.of(ch);
            return fd < 0 ? null : new SocketCalls(ch, fd, maxIov);
        } catch (IOException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * Links and primes the calls on a thread of their own, once per process, when the first tcp domain opens.
     * Otherwise the first connection to prove busy would do it in the middle of its traffic: in a cold JVM the
     * linking and the handles' customization take 50-140 ms, most of a 64 B ping-pong's first thousand round
     * trips. A connection that needs the calls before they are ready waits for the class's initialization.
     */
    static void linkInBackground() {
        if (LINKING.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("jfabric-tcp-link").start(SocketCalls::link);
        }
    }

    private static void link() {
        try {
            Native.ready();
        } catch (LinkageError e) {
            // no native calls in this process: every connection meets the same error in of() and keeps NIO's
        }
    }

    private static final int SOCKADDR_STORAGE = 128;
    /** Bytes of the scratch buffer {@link #ports} needs: a sockaddr_storage and its socklen_t. */
    static final long PORTS_SCRATCH = SOCKADDR_STORAGE + 8;
    private static final short AF_INET = 2;
    private static final short AF_INET6 = 10;

    /**
     * The local and peer ports of descriptor {@code fd} ({@link SocketDescriptor#ports}), or -1 when it is not a
     * connected IPv4 or IPv6 socket. Set-up path; {@code scratch} holds {@link #PORTS_SCRATCH} bytes.
     */
    static long ports(int fd, MemorySegment scratch) {
        int local = port(Native.GETSOCKNAME, fd, scratch);
        if (local < 0) {
            return -1;
        }
        int peer = port(Native.GETPEERNAME, fd, scratch);
        return peer < 0 ? -1 : SocketDescriptor.ports(local, peer);
    }

    /** The port of the sockaddr that {@code call} (getsockname or getpeername) gives for {@code fd}, or -1. */
    private static int port(MethodHandle call, int fd, MemorySegment scratch) {
        scratch.set(ValueLayout.JAVA_INT, SOCKADDR_STORAGE, SOCKADDR_STORAGE);
        int rc;
        try {
            rc = (int) call.invokeExact(fd, scratch.address(), scratch.address() + SOCKADDR_STORAGE);
        } catch (Throwable t) {
            return -1;
        }
        short family = scratch.get(ValueLayout.JAVA_SHORT, 0);
        if (rc != 0 || family != AF_INET && family != AF_INET6) {
            return -1; // not a socket (ENOTSOCK), not connected (ENOTCONN), or not IP
        }
        // sin_port and sin6_port: the two bytes after the family, in network order
        return (scratch.get(ValueLayout.JAVA_BYTE, 2) & 0xff) << 8 | scratch.get(ValueLayout.JAVA_BYTE, 3) & 0xff;
    }

    /** The native address of a direct buffer's memory (set-up path: wraps it once). */
    static long baseOf(ByteBuffer direct) {
        return MemorySegment.ofBuffer(direct).address();
    }

    /**
     * Whether a read would find something: data, end of stream or an error (poll with a zero timeout). Unlike
     * a failing read it does not take the socket's lock, which the peer's loopback delivery needs.
     */
    boolean readable() throws IOException {
        pollFd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
        int n;
        try {
            n = (int) Native.poll(pollFdAddr);
        } catch (Throwable t) {
            throw new IOException("poll failed: " + t, t);
        }
        // a failed poll (EINTR) says nothing; the read that follows finds out
        return n != 0;
    }

    /**
     * Reads into the free space of {@code buf}, a direct buffer whose memory starts at {@code base}, without
     * waiting, and moves its position past what came.
     *
     * @return bytes read, 0 when nothing is there (or the socket just failed: the next read reports it), -1 at
     *         end of stream
     * @throws IOException when the socket failed (reset, timed out)
     */
    int read(ByteBuffer buf, long base) throws IOException {
        int pos = buf.position();
        int rem = buf.limit() - pos;
        if (rem == 0) {
            return 0;
        }
        long r;
        try {
            r = Native.recv(fd, base + pos, rem, MSG_DONTWAIT);
        } catch (Throwable t) {
            throw new IOException("recv failed: " + t, t);
        }
        if (r > 0) {
            buf.position(pos + (int) r);
            return (int) r;
        }
        if (r < 0) {
            return 0;
        }
        if (closedByError()) {
            throw new IOException("connection reset or timed out (TCP state CLOSE at end of stream)");
        }
        return -1;
    }

    /** End-of-stream path: whether the kernel closed the socket for an error (reset, timeout) rather than a FIN. */
    private boolean closedByError() throws IOException {
        tcpInfo.set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
        tcpInfo.set(ValueLayout.JAVA_INT, 8, 1);
        int rc;
        try {
            rc = (int) Native.GETSOCKOPT.invokeExact(fd, IPPROTO_TCP, TCP_INFO, tcpInfo.address(),
                    tcpInfo.address() + 8);
        } catch (Throwable t) {
            throw new IOException("getsockopt failed: " + t, t);
        }
        return rc == 0 && tcpInfo.get(ValueLayout.JAVA_BYTE, 0) == TCP_CLOSE;
    }

    /**
     * Writes the remaining bytes of {@code buf}, a direct buffer whose memory starts at {@code base}, and moves
     * its position past what was taken.
     *
     * @return bytes written, 0 when the socket buffer is full
     */
    int write(ByteBuffer buf, long base) throws IOException {
        int pos = buf.position();
        int rem = buf.limit() - pos;
        if (rem == 0) {
            return 0;
        }
        long w;
        try {
            w = Native.write(fd, base + pos, rem);
        } catch (Throwable t) {
            throw new IOException("write failed: " + t, t);
        }
        if (w < 0) {
            return ch.write(buf);
        }
        buf.position(pos + (int) w);
        return (int) w;
    }

    /**
     * Writes {@code bufs[from..to)} whose native addresses are {@code addrs[from..to)} (each at the buffer's
     * position) in one writev, and moves the buffers' positions past what was taken.
     *
     * @return bytes written, 0 when the socket buffer is full
     * @throws IOException when the kernel refuses the write (reset, closed)
     */
    long write(ByteBuffer[] bufs, long[] addrs, int from, int to) throws IOException {
        int n = 0;
        int first = -1;
        for (int i = from; i < to; i++) {
            int rem = bufs[i].remaining();
            if (rem > 0) {
                iov.set(ValueLayout.JAVA_LONG, 16L * n, addrs[i]);
                iov.set(ValueLayout.JAVA_LONG, 16L * n + 8, rem);
                n++;
                if (first < 0) {
                    first = i;
                }
            }
        }
        if (n == 0) {
            return 0;
        }
        long w;
        try {
            w = (long) Native.WRITEV.invokeExact(fd, iov.address(), n);
        } catch (Throwable t) {
            throw new IOException("writev failed: " + t, t);
        }
        if (w < 0) {
            return ch.write(bufs[first]);
        }
        long left = w;
        for (int i = from; i < to && left > 0; i++) {
            int k = (int) Math.min(left, bufs[i].remaining());
            bufs[i].position(bufs[i].position() + k);
            left -= k;
        }
        return w;
    }

    /**
     * The calls, linked on first use. Pointers are passed as plain 64-bit addresses (the same register as a
     * pointer in the C ABI), so no segment is made per call. On x86-64 recv, write and poll go through
     * {@code syscall(2)}: glibc's own wrappers are cancellation points, and enabling and disabling
     * asynchronous cancellation around every call was 6% of a 64 B ping-pong's client time (perf); a JVM
     * thread is never cancelled that way. Elsewhere (other system call numbers) the wrappers are used.
     */
    private static final class Native {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final boolean X86_64 = "amd64".equals(System.getProperty("os.arch"))
                && "Linux".equals(System.getProperty("os.name"));
        private static final long SYS_WRITE = 1;
        private static final long SYS_POLL = 7;
        private static final long SYS_RECVFROM = 45;

        static final MethodHandle WRITEV = link("writev", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        static final MethodHandle GETSOCKOPT = link("getsockopt", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG));
        static final MethodHandle GETSOCKNAME = link("getsockname", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        static final MethodHandle GETPEERNAME = link("getpeername", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        private static final MethodHandle SYSCALL3 = X86_64 ? syscall(3) : null;
        private static final MethodHandle SYSCALL6 = X86_64 ? syscall(6) : null;
        private static final MethodHandle WRITE = X86_64 ? null : link("write", FunctionDescriptor.of(
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        private static final MethodHandle RECV = X86_64 ? null : link("recv", FunctionDescriptor.of(
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT));
        private static final MethodHandle POLL = X86_64 ? null : link("poll", FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

        /**
         * More than the JDK's customization threshold (127 calls of a handle from code the JIT has not compiled
         * yet). A handle reaching it spins a customized LambdaForm, 60-200 KB of garbage on the calling thread;
         * a path that runs rarely (a full socket, a batched write) could reach it a million messages in. Calls
         * on fd -1 fail with EBADF and touch nothing, so the handles are customized here, before any data.
         */
        private static final int PRIME_CALLS = 200;

        static {
            try {
                for (int i = 0; i < PRIME_CALLS; i++) {
                    recv(-1, 0, 0, 0);
                    write(-1, 0, 0);
                    poll(0);
                    long w = (long) WRITEV.invokeExact(-1, 0L, 0);
                    int g = (int) GETSOCKOPT.invokeExact(-1, 0, 0, 0L, 0L);
                }
                // the lookup's calls run once per descriptor of the process: linked here, off the traffic
                int n = (int) GETSOCKNAME.invokeExact(-1, 0L, 0L);
                int p = (int) GETPEERNAME.invokeExact(-1, 0L, 0L);
            } catch (Throwable t) {
                throw new ExceptionInInitializerError(t);
            }
        }

        /** Nothing: calling it runs the class's initialization. */
        static void ready() {
        }

        static long recv(int fd, long addr, int len, int flags) throws Throwable {
            return X86_64
                    ? (long) SYSCALL6.invokeExact(SYS_RECVFROM, (long) fd, addr, (long) len, (long) flags, 0L, 0L)
                    : (long) RECV.invokeExact(fd, addr, (long) len, flags);
        }

        static long write(int fd, long addr, int len) throws Throwable {
            return X86_64
                    ? (long) SYSCALL3.invokeExact(SYS_WRITE, (long) fd, addr, (long) len)
                    : (long) WRITE.invokeExact(fd, addr, (long) len);
        }

        /** poll(2) of one pollfd with a zero timeout. */
        static long poll(long pollFd) throws Throwable {
            return X86_64
                    ? (long) SYSCALL3.invokeExact(SYS_POLL, pollFd, 1L, 0L)
                    : (int) POLL.invokeExact(pollFd, 1L, 0);
        }

        /** {@code long syscall(long number, ...)} with {@code args} 64-bit arguments after the number. */
        private static MethodHandle syscall(int args) {
            ValueLayout[] params = new ValueLayout[1 + args];
            java.util.Arrays.fill(params, ValueLayout.JAVA_LONG);
            return LINKER.downcallHandle(LINKER.defaultLookup().find("syscall").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, params), Linker.Option.firstVariadicArg(1));
        }

        private static MethodHandle link(String name, FunctionDescriptor d) {
            return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
        }
    }
}
