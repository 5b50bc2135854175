package io.jfabric.provider.tcp;

import io.jfabric.util.Sockaddr;
import static org.junit.jupiter.api.Assertions.*;

import io.jfabric.BindFlags;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What happens when the other side misbehaves: a peer process killed with operations in flight, and raw
 * sockets that complete the CM handshake and then send garbage, an unknown op, an oversized or a truncated
 * frame. Each case must complete every posted operation with an error, raise SHUTDOWN, and leave other
 * connections of the same passive endpoint working.
 */
@Timeout(60)
class FailureTest {
    private final Arena arena = Arena.ofShared();
    private FabricInfo info;
    private Loopback.Side server;
    private PassiveEndpoint pep;

    @BeforeEach
    void listen() {
        info = Loopback.loopbackInfo(false, Progress.MANUAL);
        server = Loopback.open(info);
        pep = server.fabric.openPassiveEndpoint(info);
        pep.bind(server.eq);
        pep.listen();
    }

    @AfterEach
    void close() {
        try {
            if (server.ep != null) {
                server.ep.close();
            }
            pep.close();
            Loopback.closeSide(server);
            server.fabric.close();
        } finally {
            arena.close();
        }
    }

    private void acceptNext() {
        EqEntry req = server.waitEq(EqEvent.CONNREQ, 30_000);
        if (server.ep != null) {
            server.ep.close();
        }
        server.ep = server.domain.openEndpoint(req.info);
        server.ep.bind(server.eq);
        server.ep.bind(server.cq, BindFlags.TRANSMIT | BindFlags.RECV);
        server.ep.accept(null);
        server.waitEq(EqEvent.CONNECTED, 10_000);
    }

    /**
     * A closed passive endpoint stops listening at once, though nothing selects on the fabric afterwards
     * (manual progress): java.nio defers closing a registered socket until its selector runs, and a listening
     * socket left open completes handshakes nobody answers, so a connecting peer would wait forever.
     */
    @Test
    void closedPassiveEndpointRefusesConnectionsAtOnce() throws Exception {
        InetSocketAddress addr = Sockaddr.toInet(pep.getName());
        pep.close();
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open()) {
            assertThrows(java.net.ConnectException.class, () -> ch.connect(addr),
                    "a connect to the port of a closed passive endpoint");
        }
    }

    @Test
    void killedPeerFailsEveryPostedOperationAndRaisesShutdown() throws Exception {
        InetSocketAddress addr = Sockaddr.toInet(pep.getName());
        String java = ProcessHandle.current().info().command().orElse("java");
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                PeerProcess.class.getName(), "127.0.0.1", String.valueOf(addr.getPort()))
                .redirectErrorStream(true).start();
        try {
            // accept while the child connects; its READY line arrives after its CONNECTED
            acceptNext();
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null && !line.equals("READY")) {
                // child output before READY (logging) is ignored
            }
            assertEquals("READY", line, "peer process did not connect");

            MemorySegment rx = arena.allocate(64);
            assertEquals(0, server.ep.recv(rx, null, 0, "recv"));
            Msg m = new Msg().set(arena.allocate(64), null, 0, "needs-ack");
            assertEquals(0, server.ep.sendmsg(m, OpFlags.DELIVERY_COMPLETE));
            MemorySegment big = arena.allocate(4 << 20);
            Set<Object> pending = new HashSet<>(Set.of("recv", "needs-ack"));
            for (int i = 0; i < 8; i++) {
                assertEquals(0, server.ep.send(big, null, 0, "big" + i));
                pending.add("big" + i);
            }
            // let the peer's socket buffers fill; the big sends cannot all finish
            CqEntry[] a = {new CqEntry()};
            long settle = System.currentTimeMillis() + 300;
            while (System.currentTimeMillis() < settle) {
                if (server.cq.read(a, 1) == 1) {
                    pending.remove(a[0].context);
                }
            }
            assertTrue(pending.contains("needs-ack") && pending.contains("recv"));

            long killed = System.nanoTime();
            child.destroyForcibly();
            assertTrue(child.waitFor(10, TimeUnit.SECONDS));
            CqErrEntry err = new CqErrEntry();
            long deadline = System.currentTimeMillis() + 10_000;
            while (!pending.isEmpty() && System.currentTimeMillis() < deadline) {
                int n = server.cq.sread(a, 1, 100);
                if (n == 1) {
                    pending.remove(a[0].context); // a big send that drained just before the kill
                } else if (n == -Errno.EAVAIL) {
                    assertEquals(1, server.cq.readError(err, 0));
                    assertTrue(err.err == Errno.ECONNRESET || err.err == Errno.ECANCELED, err.toString());
                    pending.remove(err.context);
                }
            }
            assertTrue(pending.isEmpty(), "operations left hanging after the peer died: " + pending);
            assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killed) < 10);
            server.waitEq(EqEvent.SHUTDOWN, 5000);
            assertEquals(-Errno.ENOTCONN, server.ep.send(rx, null, 0, null));
        } finally {
            child.destroyForcibly();
        }
    }

    /** A raw TCP peer that does the CM handshake by hand, so it can then send anything. */
    private Socket rawPeer() throws Exception {
        InetSocketAddress addr = Sockaddr.toInet(pep.getName());
        Socket s = new Socket("127.0.0.1", addr.getPort());
        s.setSoTimeout(10_000);
        MemorySegment req = arena.allocate(CmMessage.MAX_SIZE);
        int n = CmMessage.encode(req, CmMessage.TYPE_CONNREQ, null, 0);
        s.getOutputStream().write(req.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
        acceptNext();
        byte[] resp = s.getInputStream().readNBytes(CmMessage.HEADER_SIZE);
        MemorySegment r = MemorySegment.ofArray(resp);
        assertEquals(0, CmMessage.decodeHeader(r, CmMessage.TYPE_CONNRESP));
        return s;
    }

    private byte[] header(int hdrBytes, java.util.function.Consumer<MemorySegment> fill) {
        MemorySegment h = arena.allocate(DataHeader.MAX_HDR_SIZE);
        fill.accept(h);
        return h.asSlice(0, hdrBytes).toArray(ValueLayout.JAVA_BYTE);
    }

    private void expectConnectionClosed(int expectedErr, int recvErr) {
        CqErrEntry err = server.waitCqError(10_000);
        assertEquals("victim", err.context);
        assertEquals(recvErr, err.err);
        EqErrEntry eqErr = server.waitEqError(10_000);
        assertEquals(expectedErr, eqErr.err);
        assertNotNull(eqErr.errData, "the EQ error should say what was wrong");
        server.waitEq(EqEvent.SHUTDOWN, 10_000);
    }

    private void checkHealthyConnectionStillWorks() {
        Loopback.Side client = Loopback.open(info);
        client.partner = server;
        server.partner = client;
        try {
            client.ep = client.domain.openEndpoint(info);
            client.ep.bind(client.eq);
            client.ep.bind(client.cq, BindFlags.TRANSMIT | BindFlags.RECV);
            client.ep.connect(pep.getName(), null);
            acceptNext();
            client.waitEq(EqEvent.CONNECTED, 10_000);
            MemorySegment rx = arena.allocate(32);
            MemorySegment tx = arena.allocate(32);
            tx.fill((byte) 0x5a);
            assertEquals(0, server.ep.recv(rx, null, 0, "ok"));
            assertEquals(0, client.ep.send(tx, null, 0, "s"));
            assertEquals("ok", server.waitCq(10_000).context);
            assertEquals(-1, rx.mismatch(tx));
        } finally {
            server.partner = null;
            Loopback.closeSide(client);
            client.fabric.close();
        }
    }

    @Test
    void garbageFrameClosesOnlyThatConnection() throws Exception {
        try (Socket s = rawPeer()) {
            assertEquals(0, server.ep.recv(arena.allocate(64), null, 0, "victim"));
            OutputStream o = s.getOutputStream();
            o.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            expectConnectionClosed(Errno.EIO, Errno.ECANCELED);
            InputStream in = s.getInputStream();
            s.setSoTimeout(5000);
            assertEquals(-1, in.read(), "the provider should have closed the socket");
        }
        checkHealthyConnectionStillWorks();
    }

    @Test
    void unknownOpIsRejected() throws Exception {
        try (Socket s = rawPeer()) {
            assertEquals(0, server.ep.recv(arena.allocate(64), null, 0, "victim"));
            byte[] h = header(16, seg -> {
                DataHeader.encodeMsg(seg, WireOrder.HOST, 0, 0, 0, 0);
                seg.set(ValueLayout.JAVA_BYTE, 1, (byte) 42);
            });
            s.getOutputStream().write(h);
            expectConnectionClosed(Errno.EIO, Errno.ECANCELED);
        }
        checkHealthyConnectionStillWorks();
    }

    /** A tagged frame at an endpoint without FI_TAGGED: no trecv can ever match, so it must not stall. */
    @Test
    void taggedFrameAtAnUntaggedEndpointClosesTheConnection() throws Exception {
        try (Socket s = rawPeer()) {
            assertEquals(0, server.ep.recv(arena.allocate(64), null, 0, "victim"));
            byte[] h = header(24, seg -> DataHeader.encodeMsg(seg, WireOrder.HOST, DataHeader.FLAG_TAGGED, 0, 0x4d2, 0));
            s.getOutputStream().write(h);
            expectConnectionClosed(71 /* EPROTO */, Errno.ECANCELED);
        }
        checkHealthyConnectionStillWorks();
    }

    @Test
    void oversizedFrameIsRejectedBeforeAnyPayloadIsRead() throws Exception {
        try (Socket s = rawPeer()) {
            assertEquals(0, server.ep.recv(arena.allocate(64), null, 0, "victim"));
            byte[] h = header(16, seg -> DataHeader.encodeMsg(seg, WireOrder.HOST, 0, 0, 0, 1L << 40));
            s.getOutputStream().write(h);
            expectConnectionClosed(Errno.EMSGSIZE, Errno.ECANCELED);
        }
        checkHealthyConnectionStillWorks();
    }

    @Test
    void truncatedFrameFailsTheReceiveItWasFilling() throws Exception {
        try (Socket s = rawPeer()) {
            assertEquals(0, server.ep.recv(arena.allocate(2000), null, 0, "victim"));
            byte[] h = header(16, seg -> DataHeader.encodeMsg(seg, WireOrder.HOST, 0, 0, 0, 1000));
            s.getOutputStream().write(h);
            s.getOutputStream().write(new byte[10]);
            s.getOutputStream().flush();
            // let the provider start filling the receive, then vanish mid-frame
            CqEntry[] a = {new CqEntry()};
            long until = System.currentTimeMillis() + 200;
            while (System.currentTimeMillis() < until) {
                assertEquals(-Errno.EAGAIN, server.cq.read(a, 1));
            }
        }
        CqErrEntry err = server.waitCqError(10_000);
        assertEquals("victim", err.context);
        assertEquals(Errno.ECONNRESET, err.err);
        server.waitEq(EqEvent.SHUTDOWN, 10_000);
        checkHealthyConnectionStillWorks();
    }

    @Test
    void unexpectedAckIsAProtocolError() throws Exception {
        try (Socket s = rawPeer()) {
            assertEquals(0, server.ep.recv(arena.allocate(64), null, 0, "victim"));
            s.getOutputStream().write(header(16, seg -> DataHeader.encodeAck(seg, WireOrder.HOST)));
            expectConnectionClosed(71, Errno.ECANCELED);
        }
    }

    @Test
    void badConnreqIsDroppedWithoutAnEvent() throws Exception {
        InetSocketAddress addr = Sockaddr.toInet(pep.getName());
        try (Socket s = new Socket("127.0.0.1", addr.getPort())) {
            byte[] junk = new byte[CmMessage.HEADER_SIZE];
            junk[0] = 2; // CM version 2
            s.getOutputStream().write(junk);
            s.setSoTimeout(5000);
            EqEntry e = new EqEntry();
            long deadline = System.currentTimeMillis() + 2000;
            int got = -Errno.EAGAIN;
            while (System.currentTimeMillis() < deadline && got == -Errno.EAGAIN) {
                got = server.eq.read(e, 0);
            }
            assertEquals(-Errno.EAGAIN, got, "a malformed connreq must not raise CONNREQ");
            assertEquals(-1, s.getInputStream().read(), "the socket should be closed");
        }
        checkHealthyConnectionStillWorks();
    }
}
