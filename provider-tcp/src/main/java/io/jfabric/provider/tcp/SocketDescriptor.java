package io.jfabric.provider.tcp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The file descriptor behind a connected {@link SocketChannel}, which java.nio does not expose: among this
 * process's descriptors (the names in /proc/self/fd), the one whose socket has the channel's local and peer ports
 * ({@code getsockname(2)}, {@code getpeername(2)}). Linux only. When two descriptors match, the lookup refuses (a
 * wrong descriptor would put data on another connection).
 *
 * <p>It asks each descriptor of this process rather than reading /proc/net/tcp{,6}: those tables list every socket
 * of the network namespace, and producing them walks the kernel's whole TCP hash, 3-4 ms each here with a dozen
 * sockets in them, in the middle of the first busy connection's traffic. Two system calls per descriptor take
 * microseconds.
 */
final class SocketDescriptor {
    private static final Path FDS = Path.of("/proc/self/fd");

    private SocketDescriptor() {
    }

    /** The descriptor of {@code ch} in this process, or -1 when none, or more than one, matches. */
    static int of(SocketChannel ch) throws IOException {
        long want = ports(((InetSocketAddress) ch.getLocalAddress()).getPort(),
                ((InetSocketAddress) ch.getRemoteAddress()).getPort());
        int found = -1;
        try (Arena arena = Arena.ofConfined();
             DirectoryStream<Path> fds = Files.newDirectoryStream(FDS)) {
            MemorySegment scratch = arena.allocate(SocketCalls.PORTS_SCRATCH, 8);
            for (Path p : fds) {
                int fd = descriptorNumber(p.getFileName().toString());
                if (fd < 0 || SocketCalls.ports(fd, scratch) != want) {
                    continue; // not a number, not a socket, not connected, or another connection
                }
                if (found >= 0 && found != fd) {
                    return -1;
                }
                found = fd;
            }
        }
        return found;
    }

    /** A socket's local and peer ports as one value, as {@link SocketCalls#ports} gives them. */
    static long ports(int local, int peer) {
        return (long) local << 16 | peer;
    }

    /** The decimal descriptor number {@code name} spells, or -1. */
    static int descriptorNumber(String name) {
        if (name.isEmpty() || name.length() > 9) {
            return -1;
        }
        int n = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
