package io.jfabric.provider.tcp;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The descriptor lookup: rows of /proc/net/tcp{,6} are matched on both ports (hexadecimal, after the address's
 * last colon), malformed rows are skipped, and a live connection's two ends resolve to the two descriptors whose
 * /proc/self/fd links name their sockets.
 */
class SocketDescriptorTest {
    private static final String HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
            + "   uid  timeout inode\n";

    private static String row(String local, String remote, String inode) {
        return "   0: " + local + " " + remote + " 01 00000000:00000000 00:00000000 00000000     0        0 "
                + inode + " 1 0000000000000000 20 4 30 10 -1\n";
    }

    @Test
    void rowsMatchOnBothPortsOnly() {
        String table = HEADER
                + row("0100007F:1F90", "0100007F:C350", "1001")    // 8080 -> 50000: the one asked for
                + row("0100007F:C350", "0100007F:1F90", "1002")    // the reverse direction
                + row("0100007F:1F90", "00000000:0000", "1003")    // the listener on 8080
                + row("0A000001:1F90", "0A000002:C350", "1004");   // same ports, other addresses: kept too
        assertArrayEquals(new long[]{1001, 1004}, SocketDescriptor.inodesOf(table, 8080, 50000, new long[0]));
        assertArrayEquals(new long[]{7, 1002}, SocketDescriptor.inodesOf(table, 50000, 8080, new long[]{7}));
        assertArrayEquals(new long[0], SocketDescriptor.inodesOf(table, 8081, 50000, new long[0]));
    }

    @Test
    void ipv6RowsAndMalformedRowsAreHandled() {
        String v6 = "  sl  local_address                         remote_address                        st\n"
                + row("00000000000000000000000001000000:1F90", "00000000000000000000000001000000:C350", "2001")
                + "   1: garbage\n"
                + row("0100007F:1F9G", "0100007F:C350", "2002")        // a port that is not hexadecimal
                + row("0100007F1F90", "0100007F:C350", "2003")          // no colon
                + row("0100007F:1F90", "0100007F:C350", "-5")           // a bad inode
                + row("0100007F:1F90", "0100007F:C350", "2004").trim(); // the last row without its newline
        assertArrayEquals(new long[]{2001, 2004}, SocketDescriptor.inodesOf(v6, 8080, 50000, new long[0]));
        assertArrayEquals(new long[0], SocketDescriptor.inodesOf("", 8080, 50000, new long[0]));
    }

    @Test
    void aConnectionsEndsResolveToTheirOwnDescriptors() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            int c = SocketDescriptor.of(client);
            int a = SocketDescriptor.of(accepted);
            assertTrue(c >= 0 && a >= 0, "client " + c + ", accepted " + a);
            assertNotEquals(c, a);
            // each descriptor's socket is the one whose row has the channel's local port first
            for (int[] end : new int[][]{{c, ((InetSocketAddress) client.getLocalAddress()).getPort(),
                    ((InetSocketAddress) client.getRemoteAddress()).getPort()},
                    {a, ((InetSocketAddress) accepted.getLocalAddress()).getPort(),
                            ((InetSocketAddress) accepted.getRemoteAddress()).getPort()}}) {
                String link = Files.readSymbolicLink(Path.of("/proc/self/fd/" + end[0])).toString();
                long inode = Long.parseLong(link.substring("socket:[".length(), link.length() - 1));
                long[] rows = new long[0];
                for (String t : new String[]{"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
                    rows = SocketDescriptor.inodesOf(Files.readString(Path.of(t)), end[1], end[2], rows);
                }
                assertArrayEquals(new long[]{inode}, rows, "fd " + end[0] + " -> " + link);
            }
        }
    }
}
