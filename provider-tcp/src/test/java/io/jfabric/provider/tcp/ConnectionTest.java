package io.jfabric.provider.tcp;

import io.jfabric.util.Sockaddr;
import static org.junit.jupiter.api.Assertions.*;

import io.jfabric.BindFlags;
import io.jfabric.CqEntry;
import io.jfabric.Endpoint;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ConnectionTest {

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    @Test
    void connectAndAcceptCarryCmDataBothWays() {
        byte[] req = bytes(256, 1);
        byte[] resp = bytes(100, 2);
        try (Loopback p = new Loopback(false, Progress.MANUAL, req, resp)) {
            assertArrayEquals(req, p.serverGotData);
            assertArrayEquals(resp, p.clientGotData);
            InetSocketAddress serverName = Sockaddr.toInet(p.server.ep.getName());
            InetSocketAddress clientPeer = Sockaddr.toInet(p.client.ep.getPeer());
            assertEquals(serverName, clientPeer);
            assertEquals(Sockaddr.toInet(p.client.ep.getName()), Sockaddr.toInet(p.server.ep.getPeer()));
            assertEquals(256, p.pep.cmDataSize());
        }
    }

    @Test
    void ipv6LoopbackWorks() {
        try (Loopback p = new Loopback(true, Progress.MANUAL, null, null)) {
            assertEquals(Sockaddr.IN6_LEN, p.client.ep.getPeer().length);
            assertNull(p.serverGotData);
            Arena a = Arena.ofAuto();
            MemorySegment rx = a.allocate(64);
            MemorySegment tx = a.allocate(64);
            tx.fill((byte) 7);
            assertEquals(0, p.server.ep.recv(rx, null, 0, "r"));
            assertEquals(0, p.client.ep.send(tx, null, 0, "s"));
            assertEquals("s", p.client.waitCq(5000).context);
            assertEquals("r", p.server.waitCq(5000).context);
            assertEquals(-1, rx.mismatch(tx));
        }
    }

    @Test
    void rejectDeliversEconnrefusedAndTheData() {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side server = Loopback.open(info);
        Loopback.Side client = Loopback.open(info);
        server.partner = client;
        client.partner = server;
        PassiveEndpoint pep = server.fabric.openPassiveEndpoint(info);
        try {
            pep.bind(server.eq);
            pep.listen();
            client.ep = client.domain.openEndpoint(info);
            client.ep.bind(client.eq);
            client.ep.bind(client.cq, BindFlags.TRANSMIT | BindFlags.RECV);
            client.ep.connect(pep.getName(), "let me in".getBytes(StandardCharsets.UTF_8));
            EqEntry req = server.waitEq(EqEvent.CONNREQ, 5000);
            assertEquals("let me in", new String(req.cmData, StandardCharsets.UTF_8));
            pep.reject(req.info.handle, "go away".getBytes(StandardCharsets.UTF_8));
            EqErrEntry err = client.waitEqError(5000);
            assertEquals(Errno.ECONNREFUSED, err.err);
            assertEquals("go away", new String(err.errData, StandardCharsets.UTF_8));
            assertSame(client.ep, err.fid);
            MemorySegment b = Arena.ofAuto().allocate(8);
            assertEquals(-Errno.ENOTCONN, client.ep.send(b, null, 0, null));
            FabricException twice = assertThrows(FabricException.class, () -> pep.reject(req.info.handle, null));
            assertEquals(Errno.EINVAL, twice.errno());
        } finally {
            Loopback.closeSide(client);
            pep.close();
            Loopback.closeSide(server);
            client.fabric.close();
            server.fabric.close();
        }
    }

    @Test
    void connectToAClosedPortFailsWithEconnrefused() throws Exception {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side client = Loopback.open(info);
        int port = closedPort();
        try {
            client.ep = boundEndpoint(client, info);
            assertConnectRefused(client, port);
        } finally {
            Loopback.closeSide(client);
            client.fabric.close();
        }
    }

    /**
     * An endpoint closed after its connect was refused gives its socket back at once, with nobody selecting: under
     * manual progress the descriptor used to stay open until the fabric's selector next ran, and a caller that kept
     * retrying a peer that was gone (rxm connecting on demand) piled up thousands of them.
     */
    @Test
    void anEndpointWhoseConnectWasRefusedReleasesItsSocketOnClose() throws Exception {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side client = Loopback.open(info);
        int port = closedPort();
        try {
            int before = socketDescriptors();
            for (int i = 0; i < 5; i++) {
                Endpoint ep = boundEndpoint(client, info);
                client.ep = ep;
                try {
                    assertConnectRefused(client, port);
                } finally {
                    ep.close();
                    client.ep = null;
                }
                assertEquals(before, socketDescriptors(), "sockets open after closing refused endpoint " + i);
            }
        } finally {
            Loopback.closeSide(client);
            client.fabric.close();
        }
    }

    /** Connects {@code client.ep} to {@code port}: refused, at once or as an EQ error. */
    private static void assertConnectRefused(Loopback.Side client, int port) {
        try {
            client.ep.connect(Sockaddr.of(new InetSocketAddress("127.0.0.1", port)), null);
            assertEquals(Errno.ECONNREFUSED, client.waitEqError(5000).err);
        } catch (FabricException e) {
            assertEquals(Errno.ECONNREFUSED, e.errno());
        }
    }

    /** A loopback port nothing listens on (a listener's, closed). */
    private static int closedPort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** An endpoint of {@code side}'s domain bound to its EQ and CQ. */
    private static Endpoint boundEndpoint(Loopback.Side side, FabricInfo info) {
        Endpoint ep = side.domain.openEndpoint(info);
        ep.bind(side.eq);
        ep.bind(side.cq, BindFlags.TRANSMIT | BindFlags.RECV);
        return ep;
    }

    private static int socketDescriptors() throws java.io.IOException {
        int n = 0;
        try (java.nio.file.DirectoryStream<java.nio.file.Path> fds =
                java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc/self/fd"))) {
            for (java.nio.file.Path p : fds) {
                try {
                    if (java.nio.file.Files.readSymbolicLink(p).toString().startsWith("socket:")) {
                        n++;
                    }
                } catch (java.io.IOException e) {
                    // the directory stream's own descriptor, gone by now
                }
            }
        }
        return n;
    }

    @Test
    void oversizedCmDataIsRefusedAtTheCaller() {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side client = Loopback.open(info);
        try {
            client.ep = client.domain.openEndpoint(info);
            client.ep.bind(client.eq);
            client.ep.bind(client.cq, BindFlags.TRANSMIT | BindFlags.RECV);
            FabricException e = assertThrows(FabricException.class,
                    () -> client.ep.connect(Sockaddr.of(new InetSocketAddress("127.0.0.1", 9)), new byte[257]));
            assertEquals(Errno.EINVAL, e.errno());
        } finally {
            Loopback.closeSide(client);
            client.fabric.close();
        }
    }

    @Test
    void shutdownRaisesShutdownOnBothSidesAndFlushesReceives() {
        try (Loopback p = new Loopback(false, Progress.MANUAL, null, null)) {
            MemorySegment rx = Arena.ofAuto().allocate(16);
            assertEquals(0, p.server.ep.recv(rx, null, 0, "pending"));
            p.client.ep.shutdown(0);
            p.client.waitEq(EqEvent.SHUTDOWN, 5000);
            // the server notices the close in its progress and flushes its posted receive
            CqEntry[] a = {new CqEntry()};
            io.jfabric.CqErrEntry err = p.server.waitCqError(5000);
            assertEquals("pending", err.context);
            assertTrue(err.err == Errno.ECONNRESET || err.err == Errno.ECANCELED, "err " + err.err);
            p.server.waitEq(EqEvent.SHUTDOWN, 5000);
            assertEquals(-Errno.ENOTCONN, p.client.ep.send(rx, null, 0, null));
            assertEquals(-Errno.EAGAIN, p.server.cq.read(a, 1));
        }
    }

    @Test
    void autoProgressConnectsAndDeliversWithoutQueueReads() throws Exception {
        try (Loopback p = new Loopback(false, Progress.AUTO, null, null)) {
            Arena a = Arena.ofAuto();
            MemorySegment rx = a.allocate(1000);
            MemorySegment tx = a.allocate(1000);
            for (int i = 0; i < 1000; i++) {
                tx.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            assertEquals(0, p.server.ep.recv(rx, null, 0, "r"));
            assertEquals(0, p.client.ep.send(tx, null, 0, "s"));
            long deadline = System.currentTimeMillis() + 5000;
            while (rx.mismatch(tx) != -1 && System.currentTimeMillis() < deadline) {
                Thread.sleep(1); // no CQ read: the progress thread moves the data
            }
            assertEquals(-1, rx.mismatch(tx));
            assertEquals("r", p.server.waitCq(5000).context);
        }
    }

    @Test
    void closingOutOfOrderIsEbusy() {
        try (Loopback p = new Loopback(false, Progress.MANUAL, null, null)) {
            FabricException e = assertThrows(FabricException.class, () -> p.client.cq.close());
            assertEquals(Errno.EBUSY, e.errno());
            e = assertThrows(FabricException.class, () -> p.client.domain.close());
            assertEquals(Errno.EBUSY, e.errno());
            e = assertThrows(FabricException.class, () -> p.client.fabric.close());
            assertEquals(Errno.EBUSY, e.errno());
        }
    }

    @Test
    void sendBeforeConnectIsEnotconnAndReceivesMayBePostedEarly() {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side s = Loopback.openEnabled(info);
        try {
            Endpoint ep = s.ep;
            MemorySegment b = Arena.ofAuto().allocate(8);
            assertEquals(-Errno.ENOTCONN, ep.send(b, null, 0, null));
            assertEquals(0, ep.recv(b, null, 0, "early"));
            assertEquals(0, ep.cancel("early"));
            assertEquals(Errno.ECANCELED, s.waitCqError(2000).err);
            assertEquals(-Errno.ENOENT, ep.cancel("early"));
            assertEquals(256, ep.getOpt(io.jfabric.EndpointOption.CM_DATA_SIZE));
            assertEquals(0, OpFlags.INJECT & 0);
        } finally {
            Loopback.closeSide(s);
            s.fabric.close();
        }
    }

    @Test
    void passiveEndpointBindsInsideTheConfiguredPortRange() throws Exception {
        int low;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            low = probe.getLocalPort();
        }
        int high = Math.min(65535, low + 20);
        System.setProperty("jfabric.tcp.port_low_range", String.valueOf(low));
        System.setProperty("jfabric.tcp.port_high_range", String.valueOf(high));
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side s = Loopback.open(info);
        PassiveEndpoint pep = s.fabric.openPassiveEndpoint(info);
        try {
            pep.bind(s.eq);
            pep.listen();
            int port = Sockaddr.toInet(pep.getName()).getPort();
            assertTrue(port >= low && port <= high, "port " + port + " outside " + low + ".." + high);
        } finally {
            System.clearProperty("jfabric.tcp.port_low_range");
            System.clearProperty("jfabric.tcp.port_high_range");
            pep.close();
            Loopback.closeSide(s);
            s.fabric.close();
        }
    }
}
