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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How a burst of sends leaves a connection. FI_MORE holds a frame in the transmit queue: a burst posted with it
 * leaves in one write when the first post without it comes, or at the next progress call when none comes.
 * Without it, under manual progress, a burst of small sends posted with no progress call between them leaves in
 * two writes: the first at once, the rest together at the next progress call (tcp's coalesce_sends). Whole and in
 * order either way; a send that follows a progress call, or one too large to stage, is written when posted; with
 * the parameter off every send is; a reader asleep in another thread never leaves a held send behind.
 */
@Timeout(60)
class BurstWritesTest {
    private static final int SIZE = 64;
    private static final int BURST = 32;
    private static final long WAIT_NANOS = 20_000_000_000L;
    private static final String OFF = "jfabric.tcp.coalesce_sends";

    @Test
    void aBurstLeavesInOneWriteWithItsLastPost() {
        try (Arena arena = Arena.ofShared(); Loopback pair = new Loopback(false, Progress.MANUAL, null, null)) {
            MemorySegment[] slots = postReceives(arena, pair, BURST, SIZE);
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
            MemorySegment[] slots = postReceives(arena, pair, 4, SIZE);
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

    @Test
    void aBurstLeavesInTwoWritesWholeAndInOrder() {
        assertEquals(2, burstWrites(), "the first send when posted, the rest together at the next progress call");
    }

    @Test
    void turnedOffEverySendIsWrittenWhenPosted() {
        System.setProperty(OFF, "false");
        try {
            assertEquals(BURST, burstWrites(), "one write per send");
        } finally {
            System.clearProperty(OFF);
        }
    }

    /** Injects a burst after a progress call: the writes it took until and including the next one. */
    private static long burstWrites() {
        try (Arena arena = Arena.ofShared(); Loopback pair = new Loopback(false, Progress.MANUAL, null, null)) {
            MemorySegment[] slots = postReceives(arena, pair, BURST, SIZE);
            TcpConnection conn = connection(pair);
            passOnce(pair);
            long before = conn.socketWrites();
            injectBurst(arena, pair, BURST);
            long atPost = conn.socketWrites() - before;
            passOnce(pair);
            long writes = conn.socketWrites() - before;
            assertTrue(atPost == 1 || atPost == writes, "the first send leaves when posted: " + atPost);
            expectInOrder(pair, slots, BURST);
            return writes;
        }
    }

    @Test
    void aSendAfterEachProgressCallLeavesAtOnce() {
        try (Arena arena = Arena.ofShared(); Loopback pair = new Loopback(false, Progress.MANUAL, null, null)) {
            MemorySegment[] slots = postReceives(arena, pair, 3, SIZE);
            TcpConnection conn = connection(pair);
            MemorySegment tx = arena.allocate(SIZE);
            for (int i = 0; i < 3; i++) {
                passOnce(pair);
                long before = conn.socketWrites();
                tx.set(ValueLayout.JAVA_LONG, 0, i);
                assertEquals(0, pair.client.ep.inject(tx, 0));
                assertEquals(before + 1, conn.socketWrites(), "send " + i + " follows a progress call");
            }
            expectInOrder(pair, slots, 3);
        }
    }

    @Test
    void aSendTooLargeToStageIsWrittenWithWhatWasHeld() {
        try (Arena arena = Arena.ofShared(); Loopback pair = new Loopback(false, Progress.MANUAL, null, null)) {
            int large = connection(pair).batchCapacity() + 1;
            MemorySegment[] slots = postReceives(arena, pair, 3, large);
            TcpConnection conn = connection(pair);
            passOnce(pair);
            long before = conn.socketWrites();
            injectBurst(arena, pair, 2);
            assertEquals(before + 1, conn.socketWrites(), "the second small send is held");
            MemorySegment big = arena.allocate(large);
            big.set(ValueLayout.JAVA_LONG, 0, 2);
            assertEquals(0, pair.client.ep.send(big, null, 0, "big"));
            assertTrue(conn.socketWrites() > before + 1, "a large send writes at once, the held one ahead of it");
            expectInOrder(pair, slots, 3);
        }
    }

    @Test
    void aReaderAsleepInAnotherThreadNeverStrandsAHeldSend() throws Exception {
        try (Arena arena = Arena.ofShared(); Loopback pair = new Loopback(false, Progress.MANUAL, null, null)) {
            MemorySegment[] slots = postReceives(arena, pair, 2 * BURST, SIZE);
            TcpConnection conn = connection(pair);
            CountDownLatch started = new CountDownLatch(1);
            AtomicInteger readerRc = new AtomicInteger(1);
            // the posting thread never reads the client's CQ: a second thread blocks in sread on it, as a
            // completion thread would, and is all that drives the client's progress
            Thread reader = Thread.ofPlatform().start(() -> {
                started.countDown();
                readerRc.set(pair.client.cq.sread(CqEntry.array(1), 1, 3_000));
            });
            started.await();
            injectBurst(arena, pair, BURST);
            Thread.sleep(5); // the reader now sleeps, or passes between sleeps
            injectBurst(arena, pair, BURST);
            int received = 0;
            CqEntry[] got = CqEntry.array(2 * BURST);
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (received < 2 * BURST && System.nanoTime() < deadline) {
                int k = pair.server.cq.read(got, 2 * BURST);
                for (int j = 0; j < k; j++) {
                    int slot = (Integer) got[j].context;
                    assertEquals(received, slot, "receives complete in posting order");
                    assertEquals(slot % BURST, slots[slot].get(ValueLayout.JAVA_LONG, 0), "out of order or lost");
                    received++;
                }
            }
            assertEquals(2 * BURST, received, "sends that arrived with only the blocked reader driving progress ("
                    + conn.socketWrites() + " writes)");
            reader.join(10_000);
            assertEquals(-Errno.EAGAIN, readerRc.get(), "injects complete nothing: the reader's sread times out");
        }
    }

    private static TcpConnection connection(Loopback pair) {
        return ((TcpEndpoint) pair.client.ep).connection();
    }

    /** One progress call on the client (injects report nothing, so the read returns -EAGAIN). */
    private static void passOnce(Loopback pair) {
        int rc = pair.client.cq.read(CqEntry.array(1), 1);
        assertEquals(-Errno.EAGAIN, rc, "client CQ read");
    }

    private static void injectBurst(Arena arena, Loopback pair, int n) {
        MemorySegment tx = arena.allocate(SIZE);
        for (int i = 0; i < n; i++) {
            tx.set(ValueLayout.JAVA_LONG, 0, i);
            assertEquals(0, pair.client.ep.inject(tx, 0), "inject " + i);
        }
    }

    private static MemorySegment[] postReceives(Arena arena, Loopback pair, int n, int size) {
        MemorySegment[] slots = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            slots[i] = arena.allocate(size);
            slots[i].set(ValueLayout.JAVA_LONG, 0, -1);
            assertEquals(0, pair.server.ep.recv(slots[i], null, 0, i));
        }
        return slots;
    }

    private static void expectInOrder(Loopback pair, MemorySegment[] slots, int n) {
        CqEntry[] got = CqEntry.array(n);
        int received = 0;
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (received < n && System.nanoTime() < deadline) {
            pair.client.cq.read(CqEntry.array(1), 1); // drives the client, as its application would
            int k = pair.server.cq.read(got, n);
            for (int j = 0; j < k; j++) {
                int slot = (Integer) got[j].context;
                assertEquals(received, slot, "receives complete in posting order");
                assertEquals(slot, slots[slot].get(ValueLayout.JAVA_LONG, 0), "message out of order or lost");
                received++;
            }
        }
        assertEquals(n, received, "messages delivered");
    }
}
