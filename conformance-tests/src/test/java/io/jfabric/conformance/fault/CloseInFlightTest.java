package io.jfabric.conformance.fault;

import io.jfabric.CompletionQueue;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.conformance.EndpointPair;
import io.jfabric.conformance.FabricCase;
import io.jfabric.conformance.ForEachFabric;
import io.jfabric.conformance.Gate;
import io.jfabric.conformance.Mem;
import io.jfabric.conformance.Side;
import io.jfabric.conformance.StateDump;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * An endpoint closed while sends and receives are in flight. fi_endpoint(3) lets fi_close discard such
 * operations silently; jfabric's contract (DESIGN.md, Failures) is stricter: every posted operation completes,
 * so each one shows up on its CQ, once, with FI_ECANCELED or another error, unless it had finished before the
 * close. Also: close returns promptly, the peer learns of it (FI_SHUTDOWN on MSG; a send to the closed
 * endpoint fails on RDM), and every resource is given back.
 */
@Timeout(60)
class CloseInFlightTest {
    static final long BOUND_MS = 10_000;
    static final int SENDS = 16;
    /** How long a native case's CQs are read after fi_close for the completions libfabric does report. */
    static final long DROP_WAIT_MS = 2_000;
    static final int RECVS = 4;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void closeCompletesEveryPostedOperation(FabricCase c) throws Exception {
        Gate.messaging(c);
        EndpointPair.open(c, dump);
        assertTrue(dump.closeTracked().isEmpty(), "closing the warm-up pair");
        ResourceLevel start = ResourceLevel.now();
        EndpointPair p = EndpointPair.open(c, dump);
        Side a = p.a;
        Side b = p.b;
        long size = Math.min(1 << 20, c.maxMsgSize());
        Map<Object, String> outcome = new HashMap<>();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tx = Mem.alloc(arena, size);
            MemorySegment rx = Mem.alloc(arena, 4096L * RECVS);
            MemoryRegion txMr = a.desc(tx);
            MemoryRegion rxMr = a.desc(rx);
            Set<Object> posted = new HashSet<>();
            for (int i = 0; i < RECVS; i++) {
                String ctx = "recv-" + i;
                MemorySegment slot = rx.asSlice(4096L * i, 4096);
                p.poller.post("fi_recv", () -> a.ep.recv(slot, rxMr, Fabrics.ADDR_UNSPEC, ctx));
                posted.add(ctx);
            }
            // b posts no receive: the sends stay in flight (rendezvous, a full socket or ring)
            for (int i = 0; i < SENDS; i++) {
                String ctx = "send-" + i;
                int rc = i == 0 ? p.poller.tryPost(() -> a.ep.send(tx, txMr, a.peer, ctx)) : a.ep.send(tx, txMr, a.peer, ctx);
                if (rc == -Errno.EAGAIN) {
                    break;
                }
                assertEquals(0, rc, "fi_send " + i);
                posted.add(ctx);
            }
            long until = PeerFailureTest.deadline(200);
            while (System.nanoTime() - until < 0) {
                p.poller.drive();
                collect(a.txCq, outcome);
                collect(a.rxCq, outcome);
            }
            Set<Object> before = Set.copyOf(outcome.keySet());
            dump.note("closing " + a.ep + " with " + (posted.size() - before.size()) + " of " + posted + " in flight");
            long t0 = System.nanoTime();
            dump.close(a.ep);
            long closeMs = (System.nanoTime() - t0) / 1_000_000L;
            assertTrue(closeMs < BOUND_MS, "fi_close took " + closeMs + " ms");

            // libfabric's own rule (fi_endpoint(3), fi_close): operations outstanding at close "will silently be
            // dropped, with no completions reported"; jfabric completes each with an error (docs/differences.md).
            // A native case is held to libfabric's rule: what does complete after the close is still checked.
            boolean dropAllowed = c.id().startsWith("libfabric:");
            long deadline = PeerFailureTest.deadline(BOUND_MS);
            long dropDeadline = PeerFailureTest.deadline(DROP_WAIT_MS);
            while (!outcome.keySet().containsAll(posted)) {
                if (dropAllowed && System.nanoTime() - dropDeadline > 0) {
                    break; // the rest were dropped, as libfabric allows
                }
                if (System.nanoTime() - deadline > 0) {
                    Set<Object> missing = new HashSet<>(posted);
                    missing.removeAll(outcome.keySet());
                    fail(BOUND_MS + " ms after fi_close, no completion for " + missing + " (got " + outcome + ")");
                }
                collect(a.txCq, outcome);
                collect(a.rxCq, outcome);
                p.poller.drive();
            }
            Set<Object> dropped = new HashSet<>(posted);
            dropped.removeAll(outcome.keySet());
            dump.note(dropped.size() + " operations dropped by fi_close with no completion" + (dropAllowed
                    ? " (libfabric's rule)" : ""));
            for (Object ctx : posted) {
                if (!before.contains(ctx) && outcome.containsKey(ctx)) {
                    assertTrue(outcome.get(ctx).startsWith("error"), ctx + " completed after fi_close with "
                            + outcome.get(ctx) + "; an operation cut off by close must end in an error");
                }
            }
            assertTrue(!dropped.isEmpty() || outcome.values().stream().anyMatch(o -> o.startsWith("error")),
                    "nothing was in flight at fi_close: " + outcome);
            peerNotices(c, p, arena, size);
        }
        List<Throwable> problems = dump.closeTracked();
        assertTrue(problems.isEmpty(), "closing the rest failed: " + problems);
        assertEquals("", ResourceLevel.now().leaksSince(start), "resources not given back");
    }

    /**
     * The endpoint's peer learns that it is gone. An MSG peer that posts no receive cannot: its connection
     * is held back by TCP flow control with the close behind the data, as with any stream socket; so the peer
     * here acts like a live application and keeps a receive posted, and must then get FI_SHUTDOWN (or an EQ
     * error) within the bound, with no receive completing successfully on anything but whole messages.
     */
    private void peerNotices(FabricCase c, EndpointPair p, Arena arena, long size) {
        Side b = p.b;
        if (c.isMsg()) {
            MemorySegment buf = Mem.alloc(arena, size);
            MemoryRegion mr = b.desc(buf);
            EqEntry ev = new EqEntry();
            EqErrEntry eqErr = new EqErrEntry();
            CqEntry ok = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            boolean posted = false;
            long deadline = PeerFailureTest.deadline(BOUND_MS);
            while (true) {
                if (System.nanoTime() - deadline > 0) {
                    fail("the peer of a closed MSG endpoint, receiving, got no FI_SHUTDOWN or EQ error in "
                            + BOUND_MS + " ms");
                }
                if (!posted) {
                    posted = b.ep.recv(buf, mr, Fabrics.ADDR_UNSPEC, "peer-recv") == 0;
                }
                int rc = b.eq.read(ev, 0);
                if (rc == EqEvent.SHUTDOWN) {
                    return;
                }
                if (rc == -Errno.EAVAIL) {
                    b.eq.readError(eqErr, 0);
                    return;
                }
                rc = b.rxCq.read(ok);
                if (rc == 1) {
                    assertEquals(size, ok.len, "a message the peer received before the close is whole");
                    posted = false;
                } else if (rc == -Errno.EAVAIL) {
                    b.rxCq.readError(err, 0);
                    posted = false;
                }
            }
        }
        MemorySegment msg = Mem.alloc(arena, 64);
        MemoryRegion mr = b.desc(msg);
        int rc = p.poller.tryPost(() -> b.ep.send(msg, mr, b.peer, "to-closed"));
        if (rc < 0) {
            return; // refused at once: the peer knows
        }
        CqErrEntry err = p.poller.expectError(b.txCq, BOUND_MS, "a send to the closed endpoint");
        assertEquals("to-closed", err.context);
    }

    private static void collect(CompletionQueue cq, Map<Object, String> outcome) {
        CqEntry ok = new CqEntry();
        int rc = cq.read(ok);
        if (rc == 1) {
            assertTrue(outcome.put(ok.context, "success") == null, ok.context + " completed twice");
        } else if (rc == -Errno.EAVAIL) {
            CqErrEntry err = new CqErrEntry();
            cq.readError(err, 0);
            assertTrue(err.err != 0, "an error completion carries an errno: " + err);
            assertTrue(outcome.put(err.context, "error " + Errno.name(-Math.abs(err.err))) == null,
                    err.context + " completed twice");
        }
    }
}
