package io.jfabric.provider.rxm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contracts every provider keeps on an RDM endpoint (issue 19's "one behaviour everywhere"), checked
 * on ofi_rxm: fi_connect and fi_accept are -FI_ENOSYS; a second CQ for a direction is EINVAL and changes
 * nothing; a transmit's success entry has len 0; every error entry carries a nonzero prov_errno.
 */
@Timeout(60)
class RxmEndpointContractTest {
    private final RxmNode a = new RxmNode();
    private final RxmNode b = new RxmNode();
    private final long aToB = a.insert(b.name());
    private final long bToA = b.insert(a.name());
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void closeNodes() {
        for (RxmNode n : new RxmNode[] {b, a}) {
            n.close();
        }
        arena.close();
    }

    @Test
    void connectAndAcceptAreNotImplementedOnAnRdmEndpoint() {
        FabricException c = assertThrows(FabricException.class, () -> a.ep.connect(b.name(), null));
        assertEquals(Errno.ENOSYS, c.errno());
        FabricException acc = assertThrows(FabricException.class, () -> a.ep.accept(null));
        assertEquals(Errno.ENOSYS, acc.errno());
    }

    @Test
    void aSecondCqForADirectionIsRefusedAndTheFirstKeepsItsCompletions() {
        CompletionQueue second = a.domain.openCq(new CqAttr());
        try {
            FabricException e = assertThrows(FabricException.class, () -> a.ep.bind(second, BindFlags.TRANSMIT));
            assertEquals(Errno.EINVAL, e.errno());
            FabricException rx = assertThrows(FabricException.class, () -> a.ep.bind(second, BindFlags.RECV));
            assertEquals(Errno.EINVAL, rx.errno());
            Object ctx = "still-first";
            assertEquals(0, b.ep.recv(arena.allocate(64), null, Fabrics.ADDR_UNSPEC, "r"));
            assertEquals(0, RxmNode.retry(() -> a.ep.send(RxmNode.pattern(arena, 64, 2), null, aToB, ctx),
                    10_000, a, b));
            assertTrue(RxmNode.await(() -> a.completionFor(ctx) != null, 10_000, a, b),
                    () -> "the send completes on the first CQ: " + a.completions + " " + a.errors);
            CqEntry[] none = CqEntry.array(1);
            assertEquals(-Errno.EAGAIN, second.read(none, 1), "nothing reaches the refused CQ");
        } finally {
            second.close(); // never bound, so never busy
        }
    }

    @Test
    void transmitCompletionsReportLengthZero() {
        MemorySegment target = arena.allocate(4096);
        MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0x51);
        try {
            assertEquals(0, b.ep.recv(arena.allocate(5000), null, Fabrics.ADDR_UNSPEC, "r1"));
            assertEquals(0, b.ep.trecv(arena.allocate(200_000), null, bToA, 9, 0, "r2"));
            assertEquals(0, b.ep.trecv(arena.allocate(64), null, bToA, 10, 0, "r3"));
            MemorySegment eager = RxmNode.pattern(arena, 5000, 1);
            MemorySegment large = RxmNode.pattern(arena, 200_000, 2);
            assertEquals(0, RxmNode.retry(() -> a.ep.send(eager, null, aToB, "send"), 10_000, a, b));
            assertEquals(0, RxmNode.retry(() -> a.ep.tsend(large, null, aToB, 9, "tsend"), 10_000, a, b));
            assertEquals(0, RxmNode.retry(() -> a.ep.tinject(RxmNode.pattern(arena, 16, 3), aToB, 10), 10_000, a, b));
            assertEquals(0, RxmNode.retry(() -> a.ep.write(RxmNode.pattern(arena, 4096, 4), null, aToB, 0, 0x51,
                    "write"), 10_000, a, b));
            assertEquals(0, RxmNode.retry(() -> a.ep.read(arena.allocate(4096), null, aToB, 0, 0x51, "read"),
                    10_000, a, b));
            String[] tx = {"send", "tsend", "write", "read"};
            assertTrue(RxmNode.await(() -> {
                for (String c : tx) {
                    if (a.completionFor(c) == null) {
                        return false;
                    }
                }
                return b.completionFor("r3") != null;
            }, 20_000, a, b), () -> "completions " + a.completions + ", errors " + a.errors);
            for (String c : tx) {
                assertEquals(0, a.completionFor(c).len, c + ": len applies to receives only (fi_cq(3))");
            }
            assertEquals(4, a.completions.size(), "an inject gets no completion: " + a.completions);
            assertEquals(5000, b.completionFor("r1").len, "a receive reports what arrived");
            assertEquals(200_000, b.completionFor("r2").len);
        } finally {
            mr.close();
        }
    }

    @Test
    void everyErrorCompletionCarriesAProviderErrno() {
        // ETRUNC at the receiver
        assertEquals(0, b.ep.recv(arena.allocate(10), null, Fabrics.ADDR_UNSPEC, "small"));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(RxmNode.pattern(arena, 100, 5), null, aToB, null),
                10_000, a, b));
        assertTrue(RxmNode.await(() -> b.errorFor("small") != null, 10_000, a, b));
        assertProviderErrno(b.errorFor("small"), Errno.ETRUNC);

        // ECANCELED for a cancelled receive
        assertEquals(0, b.ep.trecv(arena.allocate(10), null, bToA, 77, 0, "cancelled"));
        assertEquals(0, b.ep.cancel("cancelled"));
        assertTrue(RxmNode.await(() -> b.errorFor("cancelled") != null, 10_000, b));
        assertProviderErrno(b.errorFor("cancelled"), Errno.ECANCELED);

        // a transmit that fails: an RMA read through a key the peer never registered
        assertEquals(0, RxmNode.retry(() -> a.ep.read(arena.allocate(64), null, aToB, 0, 0xBAD, "bad-key"),
                10_000, a, b));
        assertTrue(RxmNode.await(() -> a.errorFor("bad-key") != null, 10_000, a, b),
                () -> "the read fails at the initiator: " + a.completions);
        CqErrEntry badKey = a.errorFor("bad-key");
        assertNotEquals(0, badKey.err);
        assertProviderErrno(badKey, badKey.err);
    }

    private static void assertProviderErrno(CqErrEntry e, int err) {
        assertEquals(err, e.err);
        assertEquals(err, e.provErrno, "prov_errno is the errno itself when rxm has no finer code, so"
                + " fi_cq_strerror never says Success");
    }
}
