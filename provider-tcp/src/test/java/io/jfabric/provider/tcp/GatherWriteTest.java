package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.CqEntry;
import io.jfabric.Progress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A frame too large for the staging buffer leaves as one writev of header and payload (libfabric's single
 * sendmsg), straight from the caller's memory, and arrives intact; with FI_TCP_GATHER_WRITE off it takes one
 * write per buffer.
 */
@Timeout(30)
class GatherWriteTest extends ParameterLoopbackTest {
    private static final String PROP = "jfabric.tcp.gather_write";
    private static final int SIZE = 256 * 1024;
    @Override
    String property() {
        return PROP;
    }

    private static long writes(Loopback.Side side) {
        return ((TcpEndpoint) side.ep).connection().socketWrites();
    }

    /**
     * Sends {@code n} frames of SIZE bytes client to server; returns the client's writes per frame. The frames go
     * through the socket: the same-host copy, which would carry them otherwise, is off for this pair.
     */
    private double sendFrames(int n) {
        System.setProperty("jfabric.tcp.same_host_copy", "false");
        try {
            pair = new Loopback(false, Progress.MANUAL, null, null);
        } finally {
            System.clearProperty("jfabric.tcp.same_host_copy");
        }
        MemorySegment tx = arena.allocate(SIZE);
        MemorySegment rx = arena.allocate(SIZE);
        for (int i = 0; i < SIZE / 8; i++) {
            tx.setAtIndex(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
        }
        long before = writes(pair.client);
        for (int k = 0; k < n; k++) {
            rx.fill((byte) 0);
            assertEquals(0, pair.server.ep.recv(rx, null, 0, "rx"));
            assertEquals(0, pair.client.ep.send(tx, null, 0, "tx"));
            CqEntry got = pair.server.waitCq(10_000);
            assertEquals(SIZE, got.len);
            pair.client.waitCq(10_000);
            assertEquals(-1L, tx.mismatch(rx), "payload corrupted");
        }
        return (writes(pair.client) - before) / (double) n;
    }

    @Test
    void headerAndPayloadLeaveInOneWrite() {
        double perFrame = sendFrames(20);
        // a full socket buffer may split a frame; the first write of every frame carries header and payload
        assertTrue(perFrame >= 1.0 && perFrame < 1.5, "writes per frame: " + perFrame);
    }

    @Test
    void offWritesEachBufferOnItsOwn() {
        System.setProperty(PROP, "false");
        double perFrame = sendFrames(20);
        assertTrue(perFrame >= 2.0, "writes per frame: " + perFrame);
    }
}
