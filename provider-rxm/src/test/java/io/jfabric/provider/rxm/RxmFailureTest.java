package io.jfabric.provider.rxm;

import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Connection failures over tcp;ofi_rxm: refused connects, dead peers, restarted peers, connect storms. */
@Timeout(60)
class RxmFailureTest {
    final List<RxmNode> nodes = new ArrayList<>();
    Arena arena;

    RxmNode node() {
        RxmNode n = new RxmNode();
        nodes.add(n);
        return n;
    }

    @BeforeEach
    void setUp() {
        arena = Arena.ofShared();
    }

    @AfterEach
    void tearDown() {
        for (RxmNode n : nodes) {
            try {
                n.close();
            } catch (RuntimeException e) {
                // already closed by the test
            }
        }
        arena.close();
    }

    @Test
    void refusedConnectIsAnErrorCompletionAndLaterConnectsWork() {
        RxmNode a = node();
        RxmNode gone = node();
        byte[] goneAddr = gone.name();
        gone.close();
        nodes.remove(gone);
        long dead = a.insert(goneAddr);
        MemorySegment m = RxmNode.pattern(arena, 64, 1);
        Object ctx = "to-nobody";
        int rc = a.ep.tsend(m, null, dead, 1, ctx);
        assertTrue(rc == -Errno.EAGAIN || rc == -Errno.ECONNREFUSED, "the first send starts the connect: " + rc);
        if (rc == -Errno.EAGAIN) {
            assertTrue(RxmNode.await(() -> a.errorFor(null) != null, 10_000, a), "refusal surfaces as an error");
            CqErrEntry e = a.errorFor(null);
            assertEquals(Errno.ECONNREFUSED, e.err);
            assertArrayEquals(goneAddr, e.errData, "err_data names the peer");
            // #7441: the retried send gets the error instead of another EAGAIN
            assertEquals(-Errno.ECONNREFUSED, a.ep.tsend(m, null, dead, 1, ctx));
        }

        // #6682: a failure to one peer must not poison connects to another
        RxmNode b = node();
        long live = a.insert(b.name());
        long bToA = b.insert(a.name());
        MemorySegment dst = arena.allocate(64);
        Object r = "r";
        assertEquals(0, b.ep.trecv(dst, null, bToA, 1, 0, r));
        assertEquals(0, RxmNode.retry(() -> a.ep.tsend(m, null, live, 1, null), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.completionFor(r) != null, 10_000, a, b));

        // and the next send to the dead address tries again, ending in the refusal rather than a stuck EAGAIN
        a.errors.clear();
        assertEquals(-Errno.ECONNREFUSED, RxmNode.retry(() -> a.ep.tsend(m, null, dead, 1, "again"), 10_000, a));
    }

    @Test
    void peerDeathFailsPendingOperationsAndSparesOthers() {
        RxmNode a = node();
        RxmNode b = node();
        RxmNode c = node();
        long ab = a.insert(b.name());
        long ac = a.insert(c.name());
        long ba = b.insert(a.name());
        long ca = c.insert(a.name());
        // connect a<->b and a<->c with one message each
        MemorySegment small = RxmNode.pattern(arena, 8, 1);
        assertEquals(0, b.ep.recv(arena.allocate(8), null, ba, "b0"));
        assertEquals(0, c.ep.recv(arena.allocate(8), null, ca, "c0"));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(small, null, ab, null), 10_000, a, b));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(small, null, ac, null), 10_000, a, c));
        assertTrue(RxmNode.await(() -> b.completionFor("b0") != null && c.completionFor("c0") != null, 10_000,
                a, b, c));

        // a rendezvous send b never reads: it waits for rd_done, then b dies
        MemorySegment big = RxmNode.pattern(arena, 1 << 20, 2);
        Object pending = "pending-rndv";
        assertEquals(0, RxmNode.retry(() -> a.ep.tsend(big, null, ab, 77, pending), 10_000, a, b));
        RxmNode.await(() -> false, 200, a, b);
        b.close();
        nodes.remove(b);
        assertTrue(RxmNode.await(() -> a.errorFor(pending) != null, 10_000, a), () -> a.toString());
        int err = a.errorFor(pending).err;
        assertTrue(err == Errno.ECONNRESET || err == Errno.ECONNABORTED || err == Errno.ECANCELED || err == Errno.EIO,
                Errno.name(err));

        // #7441: RMA to the dead peer ends in an error, never an endless EAGAIN
        MemorySegment buf = arena.allocate(64);
        Object rma = "rma";
        int rc = RxmNode.retry(() -> a.ep.read(buf, null, ab, 0, 1, rma), 10_000, a);
        assertEquals(-Errno.ECONNREFUSED, rc, "the read fails instead of returning EAGAIN forever");

        // c is unaffected
        assertEquals(0, c.ep.recv(arena.allocate(8), null, ca, "c1"));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(small, null, ac, null), 10_000, a, c));
        assertTrue(RxmNode.await(() -> c.completionFor("c1") != null, 10_000, a, c));
    }

    @Test
    void restartedPeerReplacesTheOldConnection() {
        RxmNode a = node();
        RxmNode b = node();
        long ba = b.insert(a.name());
        long ab = a.insert(b.name());
        MemorySegment m = RxmNode.pattern(arena, 16, 3);
        assertEquals(0, a.ep.recv(arena.allocate(16), null, ab, "first"));
        assertEquals(0, RxmNode.retry(() -> b.ep.send(m, null, ba, null), 10_000, a, b));
        assertTrue(RxmNode.await(() -> a.completionFor("first") != null, 10_000, a, b));
        // b goes away and a new endpoint (same process here, so the same pid) takes over at a new address
        b.close();
        nodes.remove(b);
        RxmNode b2 = node();
        long b2a = b2.insert(a.name());
        assertEquals(0, a.ep.recv(arena.allocate(16), null, -1L, "second"));
        assertEquals(0, RxmNode.retry(() -> b2.ep.send(m, null, b2a, null), 10_000, a, b2));
        assertTrue(RxmNode.await(() -> a.completionFor("second") != null, 10_000, a, b2));
    }

    @Test
    void connectStormEveryoneSendsToEveryoneFirst() {
        int n = 5;
        RxmNode[] p = new RxmNode[n];
        for (int i = 0; i < n; i++) {
            p[i] = node();
        }
        long[][] addr = new long[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                addr[i][j] = p[i].insert(p[j].name());
            }
        }
        MemorySegment[][] dst = new MemorySegment[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i != j) {
                    dst[i][j] = arena.allocate(8);
                    assertEquals(0, p[i].ep.trecv(dst[i][j], null, addr[i][j], j, 0, "from" + j));
                }
            }
        }
        // every node starts a send to every other before anyone polls: simultaneous connects everywhere
        int[][] state = new int[n][n];
        MemorySegment[] src = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            src[i] = arena.allocate(8);
            src[i].set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 1000 + i);
        }
        long end = System.nanoTime() + 30_000_000_000L;
        boolean pendingSends = true;
        while (pendingSends && System.nanoTime() < end) {
            pendingSends = false;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (i == j || state[i][j] == 1) {
                        continue;
                    }
                    int rc = p[i].ep.tsend(src[i], null, addr[i][j], i, null);
                    if (rc == 0) {
                        state[i][j] = 1;
                    } else {
                        assertEquals(-Errno.EAGAIN, rc);
                        pendingSends = true;
                    }
                }
            }
            for (RxmNode x : p) {
                x.poll();
            }
        }
        assertFalse(pendingSends, "every send was accepted");
        assertTrue(RxmNode.await(() -> {
            for (int i = 0; i < n; i++) {
                if (p[i].completions.stream().filter(c -> c.context instanceof String).count() < n - 1) {
                    return false;
                }
            }
            return true;
        }, 30_000, p), () -> java.util.Arrays.toString(p));
        for (int i = 0; i < n; i++) {
            assertTrue(p[i].errors.isEmpty(), p[i].errors.toString());
            for (int j = 0; j < n; j++) {
                if (i != j) {
                    assertEquals(1000 + j, dst[i][j].get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
                }
            }
        }
    }

    @Test
    void aMessageSentJustBeforeTheSenderClosesIsDelivered() {
        RxmNode a = node();
        RxmNode b = node();
        long ab = a.insert(b.name());
        long ba = b.insert(a.name());
        MemorySegment m = RxmNode.pattern(arena, 64, 9);
        // connect first
        assertEquals(0, b.ep.recv(arena.allocate(64), null, ba, "first"));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(m, null, ab, "s1"), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.completionFor("first") != null && a.completionFor("s1") != null, 10_000,
                a, b));
        // a rendezvous each way first (RMA reads on both connections' core endpoints)
        MemorySegment big = RxmNode.pattern(arena, 1 << 20, 4);
        assertEquals(0, b.ep.recv(arena.allocate(1 << 20), null, ba, "big-b"));
        assertEquals(0, a.ep.recv(arena.allocate(1 << 20), null, ab, "big-a"));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(big, null, ab, "big-s1"), 10_000, a, b));
        assertEquals(0, RxmNode.retry(() -> b.ep.send(big, null, ba, "big-s2"), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.completionFor("big-b") != null && a.completionFor("big-a") != null
                && a.completionFor("big-s1") != null && b.completionFor("big-s2") != null, 10_000, a, b));
        // the last message: sent, completed at the sender, then the sender closes at once
        assertEquals(0, b.ep.recv(arena.allocate(64), null, ba, "last"));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(m, null, ab, "s2"), 10_000, a));
        assertTrue(RxmNode.await(() -> a.completionFor("s2") != null, 10_000, a));
        a.close();
        nodes.remove(a);
        // b reads nothing until the data and the close have both reached its socket
        RxmNode.await(() -> false, 300);
        assertTrue(RxmNode.await(() -> b.completionFor("last") != null || b.errorFor("last") != null, 10_000, b),
                "nothing arrived: " + b);
        assertNotNull(b.completionFor("last"), "the message was lost: " + b.errors);
    }
}
