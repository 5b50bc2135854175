package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.Progress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * FI_MORE holds a frame in the transmit queue: a burst posted with it leaves in one write when the first post
 * without it comes, or at the next progress call when none comes, whole and in order.
 */
@Timeout(60)
class MoreFlagWriteTest {
    private static final int SIZE = 16;
    private static final int BURST = 32;
    private static final long WAIT_NANOS = 20_000_000_000L;

    @Test
    void aBurstLeavesInOneWriteWithItsLastPost() {
        try (Arena arena = Arena.ofShared(); Loopback pair = new Loopback(false, Progress.MANUAL, null, null)) {
            MemorySegment[] slots = postReceives(arena, pair, BURST);
            TcpConnection conn = ((TcpEndpoint) pair.client.ep).connection();
            MemorySegment tx = arena.allocate(SIZE);
            Msg m = new Msg(1);
            long before = conn.socketWrites();
            for (int i = 0; i < BURST - 1; i++) {
                tx.set(ValueLayout.JAVA_LONG, 0, i);
                assertEquals(0, pair.client.ep.sendmsg(m.set(tx, null, 0, null), OpFlags.INJECT | OpFlags.MORE));
            }
            assertEquals(before, conn.socketWrites(), "frames posted with FI_MORE wait");
            tx.set(ValueLayout.JAVA_LONG, 0, BURST - 1);
            assertEquals(0, pair.client.ep.inject(tx, 0));
            assertEquals(before + 1, conn.socketWrites(), "the burst leaves in one write with its last post");
            expectInOrder(pair, slots, BURST);
        }
    }

    @Test
    void framesLeftBehindMoreLeaveAtTheNextProgressCall() {
        try (Arena arena = Arena.ofShared(); Loopback pair = new Loopback(false, Progress.MANUAL, null, null)) {
            MemorySegment[] slots = postReceives(arena, pair, 4);
            TcpConnection conn = ((TcpEndpoint) pair.client.ep).connection();
            MemorySegment tx = arena.allocate(SIZE);
            Msg m = new Msg(1);
            long before = conn.socketWrites();
            for (int i = 0; i < 4; i++) {
                tx.set(ValueLayout.JAVA_LONG, 0, i);
                assertEquals(0, pair.client.ep.sendmsg(m.set(tx, null, 0, null), OpFlags.INJECT | OpFlags.MORE));
            }
            assertEquals(before, conn.socketWrites(), "frames posted with FI_MORE wait");
            // fi_sendmsg with FI_INJECT completes (no FI_SELECTIVE_COMPLETION here): the read may return those
            int rc = pair.client.cq.read(CqEntry.array(4), 4);
            assertTrue(rc >= 0 || rc == -Errno.EAGAIN, "client CQ read: " + rc);
            assertEquals(before + 1, conn.socketWrites(), "a CQ read's progress writes what FI_MORE held");
            expectInOrder(pair, slots, 4);
        }
    }

    private static MemorySegment[] postReceives(Arena arena, Loopback pair, int n) {
        MemorySegment[] slots = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            slots[i] = arena.allocate(SIZE);
            assertEquals(0, pair.server.ep.recv(slots[i], null, 0, i));
        }
        return slots;
    }

    private static void expectInOrder(Loopback pair, MemorySegment[] slots, int n) {
        CqEntry[] got = CqEntry.array(n);
        int received = 0;
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (received < n && System.nanoTime() < deadline) {
            int k = pair.server.cq.read(got, n);
            for (int j = 0; j < k; j++) {
                int slot = (Integer) got[j].context;
                assertEquals(received, slot, "receives complete in posting order");
                assertEquals(received, slots[slot].get(ValueLayout.JAVA_LONG, 0), "message out of order or lost");
                received++;
            }
        }
        assertEquals(n, received, "messages delivered");
    }
}
