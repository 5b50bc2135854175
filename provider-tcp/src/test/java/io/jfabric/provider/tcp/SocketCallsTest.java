package io.jfabric.provider.tcp;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.Progress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Small messages travel by system calls on the socket's descriptor (recv into and write from the staging
 * buffers), not through NIO, once a connection is busy: both ends switch to them after
 * {@link TcpConnection#BUSY_CALLS} data calls, data arrives intact both ways across the switch, and the
 * peer's close still reaches the survivor as the end of the connection.
 */
@Timeout(30)
class SocketCallsTest {
    private static final int ROUND_TRIPS = 2_000;
    private final Arena arena = Arena.ofShared();
    private Loopback pair;

    @AfterEach
    void tearDown() {
        if (pair != null) {
            pair.close();
        }
        arena.close();
    }

    private static TcpConnection conn(Loopback.Side side) {
        return ((TcpEndpoint) side.ep).connection();
    }

    @Test
    void smallMessagesUseTheDescriptorAndArriveIntact() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        assertTrue(!conn(pair.client).usesDescriptorCalls(), "a fresh connection scanned /proc already");
        MemorySegment ping = arena.allocate(64);
        MemorySegment pong = arena.allocate(64);
        MemorySegment rx = arena.allocate(64);
        long writesBefore = conn(pair.client).socketWrites();
        for (int i = 0; i < ROUND_TRIPS; i++) {
            ping.fill((byte) i);
            pong.fill((byte) ~i);
            rx.fill((byte) 0x55);
            assertEquals(0, pair.server.ep.recv(rx, null, 0, "s-rx"));
            assertEquals(0, pair.client.ep.send(ping, null, 0, "c-tx"));
            assertEquals("s-rx", pair.server.waitCq(10_000).context);
            assertEquals(-1, rx.mismatch(ping), "ping " + i);
            pair.client.waitCq(10_000);
            rx.fill((byte) 0x55);
            assertEquals(0, pair.client.ep.recv(rx, null, 0, "c-rx"));
            assertEquals(0, pair.server.ep.send(pong, null, 0, "s-tx"));
            assertEquals("c-rx", pair.client.waitCq(10_000).context);
            assertEquals(-1, rx.mismatch(pong), "pong " + i);
            pair.server.waitCq(10_000);
        }
        assertTrue(conn(pair.client).usesDescriptorCalls(), "client: " + conn(pair.client));
        assertTrue(conn(pair.server).usesDescriptorCalls(), "server: " + conn(pair.server));
        // one write per message: header and payload staged together
        assertEquals(ROUND_TRIPS, conn(pair.client).socketWrites() - writesBefore);
    }

    @Test
    void thePeersCloseEndsTheConnection() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        MemorySegment rx = arena.allocate(64);
        MemorySegment tx = arena.allocate(64);
        for (int i = 0; i < TcpConnection.BUSY_CALLS; i++) {
            assertEquals(0, pair.client.ep.recv(rx, null, 0, "warm"));
            assertEquals(0, pair.server.ep.send(tx, null, 0, "warm"));
            pair.client.waitCq(10_000);
            pair.server.waitCq(10_000);
        }
        assertTrue(conn(pair.client).usesDescriptorCalls(), "client: " + conn(pair.client));
        assertEquals(0, pair.client.ep.recv(rx, null, 0, "pending"));
        pair.server.ep.close();
        CqEntry ok = new CqEntry();
        CqErrEntry err = new CqErrEntry();
        long deadline = System.nanoTime() + 10_000_000_000L;
        int rc;
        do {
            rc = pair.client.cq.read(ok);
            assertTrue(System.nanoTime() < deadline, "the pending receive never ended: " + conn(pair.client));
        } while (rc == -Errno.EAGAIN);
        assertEquals(-Errno.EAVAIL, rc, "the pending receive completed without data");
        pair.client.cq.readError(err, 0);
        assertEquals("pending", err.context);
        assertTrue(conn(pair.client).isEnded(), "connection not ended: " + conn(pair.client));
    }
}
