package io.jfabric.conformance;

import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FI_SOURCE_ERR (fi_cq(3)): with FI_SOURCE | FI_SOURCE_ERR, a message from a sender the receiver's AV does not
 * hold completes as an error entry, err FI_EADDRNOTAVAIL, with the sender's raw address in err_data, so the
 * application can insert it; the next message from that sender then completes with its new fi_addr.
 */
@Timeout(60)
class SourceErrTest {
    static final long T = 20_000;
    static final long SOURCE_ERR = Caps.SOURCE | Caps.SOURCE_ERR;

    @RegisterExtension
    final StateDump dump = new StateDump();

    /** Whether discovery offers FI_SOURCE_ERR for this case when the hints ask for it. */
    static boolean offered(FabricCase c) {
        FabricInfo hints = Hints.create().provider(c.provider()).epType(c.epType())
                .mrMode(GetInfoTest.appMrMode(c)).caps(Caps.MSG | SOURCE_ERR).build();
        try {
            List<FabricInfo> infos = Fabrics.getInfo(hints);
            return !infos.isEmpty() && (infos.getFirst().caps & SOURCE_ERR) == SOURCE_ERR;
        } catch (FabricException e) {
            if (e.errno() == Errno.ENODATA) {
                return false;
            }
            throw e;
        }
    }

    @ForEachFabric
    void anUnknownSendersMessageCompletesWithItsAddress(FabricCase c) {
        Gate.messaging(c);
        Gate.connectionless(c);
        Gate.require(offered(c), c, "does not offer FI_SOURCE | FI_SOURCE_ERR");
        EndpointPair.Options o = new EndpointPair.Options();
        o.alterInfo = i -> {
            i.caps |= SOURCE_ERR;
            i.rxAttr.caps |= SOURCE_ERR;
        };
        Side a = new Side("a", c, dump);
        Side b = new Side("b", c, dump);
        dump.caseUnderTest(c);
        dump.reporter(a::toString);
        dump.reporter(b::toString);
        Poller poller = new Poller();
        EndpointPair.openSide(a, c, dump, o, c.freshInfo(), poller);
        EndpointPair.openSide(b, c, dump, o, c.freshInfo(), poller);
        a.peer = a.av.insert(b.ep.getName()); // b does not know a
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment t1 = Mem.alloc(arena, 32);
            Mem.fill(t1, 1);
            MemorySegment r1 = Mem.alloc(arena, 32);
            poller.post("fi_recv", () -> b.ep.recv(r1, b.desc(r1), Fabrics.ADDR_UNSPEC, "r1"));
            poller.post("fi_send from a sender b does not know", () -> a.ep.send(t1, a.desc(t1), a.peer, "s1"));
            CqErrEntry err = poller.expectError(b.rxCq, T, "receive of an unknown sender's message");
            assertEquals(Errno.EADDRNOTAVAIL, err.err, "err of " + err);
            assertEquals("r1", err.context);
            assertTrue((err.flags & OpFlags.RECV) != 0, "a receive's entry: " + err);
            assertEquals(-1, Mem.mismatch(r1, 1), "the message is in the receive buffer");
            assertArrayEquals(a.ep.getName(), err.errData, "err_data is the sender's address");
            poller.expectSuccess(a.txCq, new CqEntry(), T, "the send");

            long fi = b.av.insert(err.errData);
            assertNotEquals(Fabrics.ADDR_NOTAVAIL, fi);
            MemorySegment t2 = Mem.alloc(arena, 32);
            Mem.fill(t2, 2);
            MemorySegment r2 = Mem.alloc(arena, 32);
            poller.post("fi_recv", () -> b.ep.recv(r2, b.desc(r2), Fabrics.ADDR_UNSPEC, "r2"));
            poller.post("fi_send after b inserted a", () -> a.ep.send(t2, a.desc(t2), a.peer, "s2"));
            CqEntry[] got = CqEntry.array(1);
            long deadline = System.nanoTime() + Slow.ms(T) * 1_000_000L;
            int rc;
            while ((rc = b.rxCq.readFrom(got, 1)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
                poller.drive();
            }
            assertEquals(1, rc, "readfrom after the insert: " + Errno.name(rc));
            assertEquals("r2", got[0].context);
            assertEquals(fi, got[0].srcAddr, "the source is the fi_addr the application inserted");
            assertEquals(-1, Mem.mismatch(r2, 2));
        }
    }
}
