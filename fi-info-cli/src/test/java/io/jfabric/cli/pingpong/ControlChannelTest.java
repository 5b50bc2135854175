package io.jfabric.cli.pingpong;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The out-of-band control protocol, Java to Java and against the C fi_pingpong's bytes. */
@Timeout(30)
class ControlChannelTest {
    static final Path FI_PINGPONG = Path.of("/usr/bin/fi_pingpong");

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void javaServerAndClientExchangeNamesSyncAndCounts() throws Exception {
        int port = freePort();
        byte[] serverName = {2, 0, 1, 2, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
        CompletableFuture<long[]> server = CompletableFuture.supplyAsync(() -> {
            try (ControlChannel c = ControlChannel.serve(port, false, 10_000)) {
                c.sendName(serverName, 2);
                ControlChannel.Name n = c.recvName();
                c.sync();
                long count = c.exchangeCount(-1);
                return new long[] {n.addrFormat(), n.bytes().length, count};
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        ControlChannel client = connectWithRetry(port);
        try (client) {
            ControlChannel.Name n = client.recvName();
            assertEquals(2, n.addrFormat());
            assertArrayEquals(serverName, n.bytes());
            client.sendName(new byte[] {9, 9, 9}, 9);
            client.sync();
            assertEquals(1234567, client.exchangeCount(1234567));
        }
        assertArrayEquals(new long[] {9, 3, 1234567}, server.get(10, TimeUnit.SECONDS));
    }

    @Test
    void oversizedNameIsRefused() throws Exception {
        int port = freePort();
        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
            try (ControlChannel c = ControlChannel.serve(port, false, 10_000)) {
                c.sendName(new byte[ControlChannel.MAX_ADDRLEN + 1], 2);
                c.sync(); // waits for the client's "q" until it hangs up
            } catch (IOException expected) {
                // the client refused and closed
            }
        });
        try (ControlChannel client = connectWithRetry(port)) {
            IOException e = assertThrows(IOException.class, client::recvName);
            assertTrue(e.getMessage().contains("1025"), e.getMessage());
        }
        server.get(10, TimeUnit.SECONDS);
    }

    @Test
    void cServerSendsItsPassiveEndpointName() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(FI_PINGPONG), "not run: " + FI_PINGPONG
                + " is not installed (Debian/Ubuntu package libfabric-bin)");
        int port = freePort();
        Process c = new ProcessBuilder(FI_PINGPONG.toString(), "-p", "tcp", "-e", "msg", "-d", "lo", "-B",
                Integer.toString(port)).redirectErrorStream(true).start();
        try {
            try (ControlChannel client = connectWithRetry(port)) {
                ControlChannel.Name n = client.recvName();
                assertEquals(2, n.addrFormat(), "FI_SOCKADDR_IN");
                assertEquals(16, n.bytes().length, "sizeof(struct sockaddr_in)");
                assertEquals(2, n.bytes()[0] | n.bytes()[1] << 8, "AF_INET, host order");
                // libfabric 1.17's tcp names the pep with the first interface's address even with -d lo; it is
                // this host's own address either way, so the traffic stays on this machine
                InetAddress ip = InetAddress.getByAddress(Arrays.copyOfRange(n.bytes(), 4, 8));
                assertTrue(java.net.NetworkInterface.getByInetAddress(ip) != null, ip + " is an address of this host");
                int pepPort = (n.bytes()[2] & 0xff) << 8 | n.bytes()[3] & 0xff;
                assertTrue(pepPort != 0, "a listening pep has a port");
            }
        } finally {
            c.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void cClientConnectsToTheNameWeSend() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(FI_PINGPONG), "not run: " + FI_PINGPONG
                + " is not installed (Debian/Ubuntu package libfabric-bin)");
        int port = freePort();
        try (ServerSocket fakePep = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            fakePep.setSoTimeout(10_000);
            ByteBuffer sa = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 2);
            sa.order(ByteOrder.BIG_ENDIAN).putShort((short) fakePep.getLocalPort()).put(new byte[] {127, 0, 0, 1});
            CompletableFuture<ControlChannel> ctrl = CompletableFuture.supplyAsync(() -> {
                try {
                    return ControlChannel.serve(port, false, 10_000);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(200);
            Process c = new ProcessBuilder(FI_PINGPONG.toString(), "-p", "tcp", "-e", "msg", "-d", "lo", "-P",
                    Integer.toString(port), "127.0.0.1").redirectErrorStream(true).start();
            try (ControlChannel server = ctrl.get(10, TimeUnit.SECONDS)) {
                server.sendName(sa.array(), 2);
                // the C client's tcp provider now connects to that address and sends its CM request
                try (Socket s = fakePep.accept()) {
                    s.setSoTimeout(10_000);
                    byte[] hdr = new byte[8];
                    new DataInputStream(s.getInputStream()).readFully(hdr);
                    assertEquals(3, hdr[0], "libfabric tcp ctrl header version 3");
                    assertEquals(0, hdr[1], "ofi_ctrl_connreq");
                }
            } finally {
                c.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static ControlChannel connectWithRetry(int port) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                return ControlChannel.connect("127.0.0.1", port, 0, false);
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }
}
