package io.jfabric.provider.rxm;

import io.jfabric.Access;
import io.jfabric.Caps;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every transmit that will write a completion promises itself a slot of the transmit CQ when it is posted: with
 * a CQ of 4 entries that the application does not read, the fifth such post answers -FI_EAGAIN (an inject, which
 * writes none, still goes), and once the CQ is read every completion is there and none was lost (no FI_EOVERRUN).
 */
@Timeout(60)
class RxmTxCqSlotTest {
    private static final int CQ_SIZE = 4;
    private static final int POSTS = 2 * CQ_SIZE;
    private static final int LEN = 64;

    private RxmNode a;
    private RxmNode b;
    private long aToB;

    @ParameterizedTest
    @ValueSource(strings = {"send", "tsend", "write"})
    void postsBeyondTheTransmitCqGetEagainAndNoCompletionIsLost(String op) {
        // the sender's one CQ (transmit and receive) holds 4 entries; the receiver's is the default size
        try (Arena arena = Arena.ofShared();
             RxmNode sender = new RxmNode(Caps.MSG | Caps.TAGGED | Caps.RMA, CqAttr.of(CqFormat.TAGGED, CQ_SIZE));
             RxmNode receiver = new RxmNode()) {
            a = sender;
            b = receiver;
            aToB = a.insert(b.name());
            b.insert(a.name());
            fillTheCqThenPostMore(op, arena);
        }
    }

    private void fillTheCqThenPostMore(String op, Arena arena) {
        MemorySegment src = RxmNode.pattern(arena, (long) POSTS * LEN, 3);
        MemorySegment target = arena.allocate((long) (POSTS + 1) * LEN, 64);
        MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_WRITE, 0x5107);
        try {
            MemorySegment dst = arena.allocate((long) POSTS * LEN, 64);
            for (int i = 0; i < POSTS && !op.equals("write"); i++) {
                MemorySegment d = dst.asSlice((long) i * LEN, LEN);
                int rc = op.equals("tsend") ? b.ep.trecv(d, null, Fabrics.ADDR_UNSPEC, 7, 0, "r" + i)
                        : b.ep.recv(d, null, Fabrics.ADDR_UNSPEC, "r" + i);
                assertEquals(0, rc);
            }
            // the connection comes up on the first post, which -EAGAIN answers while it does
            assertEquals(0, RxmNode.retry(() -> post(op, src, 0), 10_000, a, b));
            assertTrue(RxmNode.await(() -> a.completionFor(CONTEXTS[0]) != null, 10_000, a, b), () -> "no completion " + a.errors);
            for (int i = 1; i < CQ_SIZE + 1; i++) {
                assertEquals(0, post(op, src, i), "post " + i + " with CQ slots free");
            }
            // CQ_SIZE completions are promised and nobody reads the CQ: the next post must wait, however long
            long end = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < end) {
                b.poll();
                assertEquals(-Errno.EAGAIN, post(op, src, CQ_SIZE + 1), "a post beyond the transmit CQ's " + CQ_SIZE
                        + " slots was accepted");
            }
            assertEquals(0, a.ep.injectWrite(src.asSlice(0, 8), aToB, (long) POSTS * LEN, 0x5107),
                    "an inject writes no completion and needs no slot");
            for (int i = CQ_SIZE + 1; i < POSTS; i++) {
                int k = i;
                assertEquals(0, RxmNode.retry(() -> post(op, src, k), 10_000, a, b), "post " + i + " after reading");
            }
            assertTrue(RxmNode.await(() -> allSent(), 10_000, a, b), () -> "completions " + a.completions.size()
                    + " errors " + a.errors);
            assertEquals(0, a.errors.size(), () -> "transmit errors (an overrun CQ?) " + a.errors);
            if (op.equals("write")) {
                assertEquals(-1, src.mismatch(target.asSlice(0, (long) POSTS * LEN)), "written data");
            } else {
                assertTrue(RxmNode.await(() -> b.completions.size() >= POSTS, 10_000, a, b),
                        () -> "receives completed: " + b.completions.size());
                assertEquals(-1, src.mismatch(dst), "received data");
            }
        } finally {
            mr.close();
        }
    }

    private boolean allSent() {
        for (int i = 0; i < POSTS; i++) {
            if (a.completionFor(CONTEXTS[i]) == null) {
                return false;
            }
        }
        return true;
    }

    private int post(String op, MemorySegment src, int i) {
        MemorySegment m = src.asSlice((long) i * LEN, LEN);
        String ctx = CONTEXTS[i];
        return switch (op) {
            case "send" -> a.ep.send(m, null, aToB, ctx);
            case "tsend" -> a.ep.tsend(m, null, aToB, 7, ctx);
            default -> a.ep.write(m, null, aToB, (long) i * LEN, 0x5107, ctx);
        };
    }

    private static final String[] CONTEXTS = new String[POSTS];

    static {
        for (int i = 0; i < POSTS; i++) {
            CONTEXTS[i] = "t" + i;
        }
    }
}
