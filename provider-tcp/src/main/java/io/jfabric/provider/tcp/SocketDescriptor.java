package io.jfabric.provider.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The file descriptor behind a connected {@link SocketChannel}, which java.nio does not expose: the socket's
 * inode is found by the connection's ports in /proc/self/net/tcp{,6}, and the descriptor by that inode among
 * /proc/self/fd's links. Linux only. The tables hold every socket of the network namespace, so rows are matched
 * on both ports and kept only when their inode is a descriptor of this process; when two of this process's
 * descriptors match, the lookup refuses (a wrong descriptor would put data on another connection).
 *
 * <p>Parsed with plain loops rather than String.format, regular expressions and streams: the first
 * lookup of a process runs in the middle of a busy connection's traffic, and in a cold JVM those facilities cost
 * tens of milliseconds of class loading and interpretation on their first use.
 */
final class SocketDescriptor {
    private static final Path[] TABLES = {Path.of("/proc/self/net/tcp"), Path.of("/proc/self/net/tcp6")};
    private static final Path FDS = Path.of("/proc/self/fd");
    private static final String SOCKET_LINK = "socket:[";
    /** Columns of a /proc/net/tcp row: sl, local_address, rem_address, ..., inode. */
    private static final int LOCAL = 1;
    private static final int REMOTE = 2;
    private static final int INODE = 9;

    private SocketDescriptor() {
    }

    /** The descriptor of {@code ch} in this process, or -1 when none, or more than one, matches. */
    static int of(SocketChannel ch) throws IOException {
        int local = ((InetSocketAddress) ch.getLocalAddress()).getPort();
        int remote = ((InetSocketAddress) ch.getRemoteAddress()).getPort();
        long[] inodes = new long[0];
        for (Path table : TABLES) {
            inodes = inodesOf(Files.readString(table, StandardCharsets.ISO_8859_1), local, remote, inodes);
        }
        return inodes.length == 0 ? -1 : descriptorOf(inodes);
    }

    /**
     * {@code found} with the inodes of the rows of {@code table} (a /proc/net/tcp or tcp6 file) whose local and
     * remote ports are {@code localPort} and {@code remotePort} appended; rows that do not parse are skipped.
     */
    static long[] inodesOf(String table, int localPort, int remotePort, long[] found) {
        long[] out = found;
        int line = lineEnd(table, 0) + 1; // the header
        while (line < table.length()) {
            int end = lineEnd(table, line);
            long inode = inodeIfPorts(table, line, end, localPort, remotePort);
            if (inode > 0) {
                out = Arrays.copyOf(out, out.length + 1);
                out[out.length - 1] = inode;
            }
            line = end + 1;
        }
        return out;
    }

    /** The inode of the row {@code table[line, end)} when its ports are these; -1 otherwise or when malformed. */
    private static long inodeIfPorts(String table, int line, int end, int localPort, int remotePort) {
        int column = 0;
        int p = line;
        try {
            while (true) {
                while (p < end && table.charAt(p) == ' ') {
                    p++;
                }
                if (p == end) {
                    return -1;
                }
                int start = p;
                while (p < end && table.charAt(p) != ' ') {
                    p++;
                }
                int c = column++;
                if (c == LOCAL || c == REMOTE) {
                    int colon = table.lastIndexOf(':', p - 1);
                    int want = c == LOCAL ? localPort : remotePort;
                    if (colon < start || Integer.parseInt(table, colon + 1, p, 16) != want) {
                        return -1;
                    }
                } else if (c == INODE) {
                    return Long.parseLong(table, start, p, 10);
                }
            }
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return -1;
        }
    }

    /** The descriptor among /proc/self/fd whose link is one of {@code inodes}' sockets; -1 for none or two. */
    private static int descriptorOf(long[] inodes) throws IOException {
        int found = -1;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDS)) {
            for (Path p : fds) {
                String link;
                int fd;
                long inode;
                try {
                    link = Files.readSymbolicLink(p).toString();
                    if (!link.startsWith(SOCKET_LINK) || !link.endsWith("]")) {
                        continue;
                    }
                    inode = Long.parseLong(link, SOCKET_LINK.length(), link.length() - 1, 10);
                    fd = Integer.parseInt(p.getFileName().toString());
                } catch (IOException | NumberFormatException e) {
                    continue; // closed meanwhile, or not a socket's link
                }
                if (contains(inodes, inode)) {
                    if (found >= 0 && found != fd) {
                        return -1;
                    }
                    found = fd;
                }
            }
        }
        return found;
    }

    private static int lineEnd(String t, int from) {
        int i = t.indexOf('\n', from);
        return i < 0 ? t.length() : i;
    }

    private static boolean contains(long[] a, long v) {
        for (long x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }
}
