package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.Progress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Small frames that queue behind a full socket leave together, several to a write (TcpTxQueue's batches): once
 * the receiver drains, a backlog of injects costs far fewer system calls than frames, and every message still
 * arrives whole and in order.
 */
@Timeout(60)
class BatchedWriteTest {
    private static final int SIZE = 64;
    private static final int SLOTS = 64;
    /** Bounds the fill: loopback's socket buffers take a few MB, far fewer frames than this. */
    private static final int MAX_INJECTS = 2_000_000;
    private static final long PHASE_NANOS = 20_000_000_000L;

    @Test
    void backlogLeavesInFewWritesWholeAndInOrder() {
        try (Arena arena = Arena.ofShared(); Loopback pair = new Loopback(false, Progress.MANUAL, null, null)) {
            drainBacklog(arena, pair);
        }
    }

    private static void drainBacklog(Arena arena, Loopback pair) {
        MemorySegment tx = arena.allocate(SIZE);
        // the server does not progress: the socket fills, then the transmit queue, then inject says EAGAIN
        long injected = 0;
        long deadline = System.nanoTime() + PHASE_NANOS;
        while (injected < MAX_INJECTS && System.nanoTime() < deadline) {
            tx.set(ValueLayout.JAVA_LONG, 0, injected);
            int rc = pair.client.ep.inject(tx, 0);
            if (rc == -Errno.EAGAIN) {
                break;
            }
            assertEquals(0, rc, "inject");
            injected++;
        }
        assertTrue(injected < MAX_INJECTS, "the transmit queue never filled");
        TcpConnection conn = ((TcpEndpoint) pair.client.ep).connection();
        long writesBefore = conn.socketWrites();
        long queued = ((TcpEndpoint) pair.client.ep).txInFlight();
        assertTrue(queued > 8, "frames queued behind the full socket: " + queued);

        // the server drains with SLOTS receives posted; the client's CQ reads drive its writes
        MemorySegment[] slots = new MemorySegment[SLOTS];
        Integer[] contexts = new Integer[SLOTS];
        for (int i = 0; i < SLOTS; i++) {
            slots[i] = arena.allocate(SIZE);
            contexts[i] = i;
            assertEquals(0, pair.server.ep.recv(slots[i], null, 0, contexts[i]));
        }
        CqEntry[] got = CqEntry.array(SLOTS);
        CqEntry[] txGot = CqEntry.array(1);
        long received = 0;
        deadline = System.nanoTime() + PHASE_NANOS;
        while (received < injected && System.nanoTime() < deadline) {
            pair.client.cq.read(txGot, 1); // progress only: injects report nothing
            int n = pair.server.cq.read(got, SLOTS);
            assertTrue(n >= 0 || n == -Errno.EAGAIN, "server CQ: " + n);
            for (int k = 0; k < n; k++) {
                int slot = (Integer) got[k].context;
                assertEquals(SIZE, got[k].len);
                assertEquals(received, slots[slot].get(ValueLayout.JAVA_LONG, 0), "message out of order or lost");
                received++;
                assertEquals(0, pair.server.ep.recv(slots[slot], null, 0, contexts[slot]));
            }
        }
        assertEquals(injected, received, "messages delivered");
        long writes = conn.socketWrites() - writesBefore;
        assertTrue(writes * 4 < queued, "writes " + writes + " for " + queued + " queued frames");
    }
}
