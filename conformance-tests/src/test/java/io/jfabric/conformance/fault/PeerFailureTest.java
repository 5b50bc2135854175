package io.jfabric.conformance.fault;

import io.jfabric.CompletionQueue;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Fabrics;
import io.jfabric.conformance.EndpointPair;
import io.jfabric.conformance.FabricCase;
import io.jfabric.conformance.FabricCases;
import io.jfabric.conformance.Gate;
import io.jfabric.conformance.Mem;
import io.jfabric.conformance.PeerProcess;
import io.jfabric.conformance.Side;
import io.jfabric.conformance.Slow;
import io.jfabric.conformance.StateDump;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A peer process frozen (SIGSTOP) in the middle of a stream of sequence-numbered messages, as the sender or
 * the receiver, and then either SIGKILLed or let go (SIGCONT):
 * <ul>
 * <li>killed (a receiver once more sends lack a completion than it can have receives posted): every
 *     operation the survivor had posted completes within {@link #BOUND_MS} (sends and receives the dead
 *     peer could not have taken with an error, at least one send; connectionless receives, which may wait
 *     for any peer, with FI_ECANCELED once the test cancels them), an MSG endpoint gets FI_SHUTDOWN or an
 *     EQ error, and everything that did complete successfully holds the right bytes in the right order;</li>
 * <li>let go: the stream finishes with every message delivered once, in order and intact.</li>
 * </ul>
 * Afterwards no thread of the survivor spins (CPU time over a quiet window), and once the survivor closes
 * its objects the file descriptors, shm mappings and heap are back at their level before the scenario; a
 * killed shm peer's region is swept from /dev/shm by the next fabric open.
 */
@Timeout(60)
class PeerFailureTest {
    enum Fault { KILL, FREEZE_THEN_CONTINUE }

    enum PeerRole { SENDER, RECEIVER }

    static final long BOUND_MS = 20_000;
    /**
     * Room for the freeze to strand a full window. Over a stream transport a send completes once its bytes are in
     * the kernel's socket buffers, which take up to tcp_wmem's plus tcp_rmem's maximum (4 + 32 MiB on this CI's
     * machine: 36 of the 1 MiB messages) before the frozen peer's posted receives count at all, so the count leaves
     * room for BEFORE_FREEZE + those + WINDOW + FaultPeer.WINDOW. Where the suite shrinks messages
     * ({@link Slow#bytes}, the Soft-RoCE VM) no stream transport runs: an RDMA send lands only in a posted receive.
     */
    static final int COUNT = 96;
    static final int WINDOW = 16;
    /** Messages delivered before the freeze, so the fault strikes mid-stream. */
    static final int BEFORE_FREEZE = 8;
    static final long FROZEN_MS = 500;
    /** CPU time the survivor's other threads may use in {@link #QUIET_MS} once the fault is handled. */
    static final long QUIET_MS = 600;
    static final long MAX_IDLE_CPU_MS = QUIET_MS / 4;
    static final int SURVIVOR_RECVS = 4;

    @RegisterExtension
    final StateDump dump = new StateDump();

    static Stream<Arguments> scenarios() {
        List<Arguments> out = new ArrayList<>();
        for (FabricCase c : FabricCases.cases()) {
            for (Fault f : Fault.values()) {
                for (PeerRole r : PeerRole.values()) {
                    out.add(Arguments.of(c, f, r));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} peer-{2}", allowZeroInvocations = true)
    @MethodSource("scenarios")
    void everyOperationEndsAndNothingLeaks(FabricCase c, Fault fault, PeerRole role) throws Exception {
        Gate.messaging(c);
        dump.caseUnderTest(c);
        // 64 KiB at least, so that over rxm every message still goes by rendezvous (its eager limit is 16 KiB)
        long size = Math.min(Slow.bytes(1 << 20, 64 << 10), c.maxMsgSize());
        warmUp(c);
        PeerProcess peer = PeerProcess.start(c, role == PeerRole.SENDER ? "source" : "sink", dump, FaultPeer.class,
                List.of(Integer.toString(COUNT), Long.toString(size)), List.of());
        ResourceLevel start = ResourceLevel.now();
        Survivor me = Survivor.join(c, c.freshInfo(), peer, dump);
        try (Arena arena = Arena.ofShared()) {
            if (role == PeerRole.RECEIVER) {
                sendTo(c, me, peer, fault, arena, size);
            } else {
                receiveFrom(c, me, peer, fault, arena, size);
            }
        }
        Map<String, Long> busy = ThreadCpu.busyThreads(QUIET_MS, 5);
        long total = busy.values().stream().mapToLong(Long::longValue).sum();
        assertTrue(total <= MAX_IDLE_CPU_MS, "after the fault, threads used " + total + " ms of CPU in "
                + QUIET_MS + " ms (a spinning thread?): " + busy);
        if (fault == Fault.FREEZE_THEN_CONTINUE) {
            peer.send("QUIT");
            assertEquals(0, peer.awaitExit(BOUND_MS), "the peer's exit status (its stderr is in the dump)");
        }
        List<Throwable> problems = dump.closeTracked();
        assertTrue(problems.isEmpty(), "closing the survivor's objects failed: " + problems);
        String leaks = ResourceLevel.now().leaksSince(start);
        assertEquals("", leaks, "resources not given back after the survivor closed everything");
        if (fault == Fault.KILL && c.provider().contains("shm")) {
            try (Fabric f = Fabrics.openFabric(c.freshInfo())) {
                assertEquals(List.of(), regionsOf(peer.pid()), "the killed peer's shm region, left in /dev/shm,"
                        + " is swept when a fabric opens");
            }
        }
    }

    /** How soon after a SIGKILL an RDM endpoint bound to an EQ must say the peer is gone (jfabric's extension). */
    static final long ANNOUNCE_MS = 2_000;

    /**
     * An RDM peer killed after it sent to the survivor: within {@link #ANNOUNCE_MS} the survivor's EQ carries
     * FI_JF_PEER_FAILED naming the peer's fi_addr and address, a receive directed at it (FI_DIRECTED_RECV)
     * completes with FI_ECONNRESET, and a later send to it fails; a receive from FI_ADDR_UNSPEC stays posted
     * (another peer may fill it) until cancelled.
     */
    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("io.jfabric.conformance.FabricCases#cases")
    void aKilledRdmPeerIsAnnouncedOnTheEq(FabricCase c) throws Exception {
        Gate.messaging(c);
        Assumptions.assumeFalse(c.isMsg(), "MSG endpoints report a lost peer with FI_SHUTDOWN (the cases above)");
        Assumptions.assumeFalse(c.provider().startsWith("libfabric:"), "FI_JF_PEER_FAILED is jfabric's extension;"
                + " libfabric's own providers raise nothing when an RDM peer dies");
        dump.caseUnderTest(c);
        PeerProcess peer = PeerProcess.start(c, "source", dump, FaultPeer.class, List.of("2", "64"), List.of());
        EndpointPair.Options o = new EndpointPair.Options();
        o.alterInfo = i -> i.caps |= io.jfabric.Caps.DIRECTED_RECV;
        // an EQ opened before the endpoint (so it closes after it) is bound by openSide
        o.beforeEndpoint = side -> side.eq = dump.track(side.fabric.openEq(io.jfabric.EqAttr.defaults()));
        Survivor me = Survivor.join(c, c.freshInfo(), peer, dump, o);
        Side s = me.side;
        try (Arena arena = Arena.ofShared()) {
            FaultPeer.Stream rx = new FaultPeer.Stream(s, arena, 4, 64);
            for (int i = 0; i < 2; i++) {
                int slot = i;
                me.poller.post("fi_recv", () -> rx.recv(slot));
            }
            peer.send("GO");
            CqEntry ok = new CqEntry();
            for (int i = 0; i < 2; i++) {
                me.poller.expectSuccess(s.rxCq, ok, BOUND_MS, "message " + i + " from the peer");
            }
            peer.expect("SENT", BOUND_MS);
            MemorySegment buf = Mem.alloc(arena, 256);
            var mr = s.desc(buf);
            me.poller.post("directed fi_recv", () -> s.ep.recv(buf.asSlice(0, 64), mr, s.peer, "directed"));
            me.poller.post("fi_recv", () -> s.ep.recv(buf.asSlice(64, 64), mr, Fabrics.ADDR_UNSPEC, "any"));
            peer.kill();
            long killed = System.nanoTime();
            io.jfabric.EqEntry ev = new io.jfabric.EqEntry();
            io.jfabric.EqErrEntry evErr = new io.jfabric.EqErrEntry();
            int rc = me.poller.awaitEvent(s.eq, ev, evErr, ANNOUNCE_MS);
            long tookMs = (System.nanoTime() - killed) / 1_000_000;
            assertEquals(io.jfabric.EqEvent.PEER_FAILED, rc, "the survivor's EQ within " + ANNOUNCE_MS
                    + " ms of the SIGKILL (" + (rc == -Errno.EAVAIL ? evErr : io.jfabric.EqEvent.toString(rc)) + ")");
            assertEquals(s.peer, ev.data, "FI_JF_PEER_FAILED names the dead peer's fi_addr");
            assertSame(s.ep, ev.fid, "FI_JF_PEER_FAILED's fid is the endpoint");
            assertArrayEquals(s.av.lookup(s.peer), ev.cmData, "FI_JF_PEER_FAILED carries the peer's address");
            System.out.println("[fault] " + c.id() + ": FI_JF_PEER_FAILED " + tookMs + " ms after the kill");
            CqErrEntry err = me.poller.expectError(s.rxCq, ANNOUNCE_MS, "the receive directed at the dead peer");
            assertEquals("directed", err.context, "the failed receive is the directed one: " + err);
            assertEquals(Errno.ECONNRESET, err.err, "the directed receive's errno: " + err);
            me.poller.expectQuiet(s.rxCq, 100, "the receive from FI_ADDR_UNSPEC stays posted");
            // posted after the event, a receive directed at the dead peer fails at once instead of waiting
            me.poller.post("directed fi_recv after the event",
                    () -> s.ep.recv(buf.asSlice(192, 64), mr, s.peer, "directed-late"));
            CqErrEntry lateRecv = me.poller.expectError(s.rxCq, ANNOUNCE_MS, "a directed receive posted after the event");
            assertEquals("directed-late", lateRecv.context, "the failed receive: " + lateRecv);
            assertEquals(Errno.ECONNRESET, lateRecv.err, "the late directed receive's errno: " + lateRecv);
            int sent = me.poller.tryPost(() -> s.ep.send(buf.asSlice(128, 64), mr, s.peer, "late"));
            if (sent == 0) {
                CqErrEntry late = me.poller.expectError(s.txCq, BOUND_MS, "a send to the dead peer");
                assertEquals("late", late.context, "the failed send: " + late);
            } else {
                assertTrue(sent < 0, "a send to the dead peer is refused or fails: " + Errno.name(sent));
            }
            if ((s.info.caps & io.jfabric.Caps.RMA) != 0) {
                // no region of the dead peer is known here; whatever the key, a write to it must fail
                int wrote = me.poller.tryPost(() -> s.ep.write(buf.asSlice(128, 64), mr, s.peer, 0, 1, "late-rma"));
                if (wrote == 0) {
                    CqErrEntry rma = me.poller.expectError(s.txCq, BOUND_MS, "an RMA write to the dead peer");
                    assertEquals("late-rma", rma.context, "the failed RMA write: " + rma);
                } else {
                    assertTrue(wrote < 0, "an RMA write to the dead peer is refused or fails: " + Errno.name(wrote));
                }
            }
            assertEquals(0, s.ep.cancel("any"), "fi_cancel of the receive from FI_ADDR_UNSPEC");
            assertEquals(Errno.ECANCELED, me.poller.expectError(s.rxCq, BOUND_MS, "the cancelled receive").err);
        }
        List<Throwable> problems = dump.closeTracked();
        assertTrue(problems.isEmpty(), "closing the survivor's objects: " + problems);
    }

    /** The survivor sends, the peer receives (and is frozen, then killed or let go). */
    private void sendTo(FabricCase c, Survivor me, PeerProcess peer, Fault fault, Arena arena, long size)
            throws Exception {
        Side s = me.side;
        List<Object> recvs = postSurvivorReceives(me, arena);
        FaultPeer.Stream tx = new FaultPeer.Stream(s, arena, WINDOW, size);
        Set<Object> pending = new HashSet<>();
        CqEntry ok = new CqEntry();
        CqErrEntry err = new CqErrEntry();
        int next = 0;
        int done = 0;
        long deadline = deadline(BOUND_MS);
        while (done < BEFORE_FREEZE) {
            next = fillWindow(tx, s, pending, next, done);
            if (me.poller.awaitCq(s.txCq, ok, err, 10) == 1) {
                pending.remove(ok.context);
                done++;
            } else {
                assertNoErrorYet(err, "a send before the fault");
            }
            checkDeadline(deadline, "the first " + BEFORE_FREEZE + " sends");
        }
        peer.freeze();
        // A frozen receiver still takes sends into the receives it had posted (on RDMA the NIC places and
        // acknowledges them), and a success completion not read yet is no send in flight. So it stays frozen
        // until, with the CQ drained, more sends lack a completion than the FaultPeer.WINDOW receives it can have
        // posted: at least one of them cannot land (what landed before SIGSTOP is acknowledged by FROZEN_MS).
        // Every send posted and none completing for FROZEN_MS strands them too, however much the kernel buffers.
        long thaw = deadline(FROZEN_MS);
        long stalledSince = System.nanoTime();
        deadline = deadline(BOUND_MS);
        while (true) {
            next = fillWindow(tx, s, pending, next, done);
            int rc = me.poller.awaitCq(s.txCq, ok, err, 10);
            if (rc == 1) {
                pending.remove(ok.context);
                done++;
                stalledSince = System.nanoTime();
                continue;
            }
            assertNoErrorYet(err, "a send while the peer is frozen");
            boolean stalled = next == COUNT && !pending.isEmpty()
                    && System.nanoTime() - stalledSince >= Slow.ms(FROZEN_MS) * 1_000_000L;
            if (System.nanoTime() - thaw >= 0 && (pending.size() > FaultPeer.WINDOW || stalled)) {
                break;
            }
            checkDeadline(deadline, "more sends to the frozen receiver without a completion than the "
                    + FaultPeer.WINDOW + " receives it posts (" + pending.size() + ": " + pending + ", " + done
                    + " done)");
        }
        dump.note(fault + " with sends " + pending + " in flight, " + done + " done");
        if (fault == Fault.FREEZE_THEN_CONTINUE) {
            peer.thaw();
            deadline = deadline(BOUND_MS);
            while (done < COUNT) {
                next = fillWindow(tx, s, pending, next, done);
                if (me.poller.awaitCq(s.txCq, ok, err, 10) == 1) {
                    pending.remove(ok.context);
                    done++;
                } else {
                    assertNoErrorYet(err, "a send after SIGCONT");
                }
                checkDeadline(deadline, "the stream after SIGCONT (" + done + " of " + COUNT + " sent)");
            }
            assertEquals(Integer.toString(COUNT), peer.expect("GOT", BOUND_MS), "messages the peer received intact");
            cancelAll(c, me, recvs, s.rxCq);
            return;
        }
        peer.kill();
        Set<Object> open = new HashSet<>(pending);
        open.addAll(recvs);
        int sendErrors = 0;
        boolean ended = !c.isMsg();
        boolean cancelled = false;
        deadline = deadline(BOUND_MS);
        while (!open.isEmpty() || !ended) {
            checkDeadline(deadline, "after the peer was killed, still pending: " + open
                    + (ended ? "" : ", and no FI_SHUTDOWN or EQ error"));
            ended |= me.connectionEnded();
            int rc = s.txCq.read(ok);
            if (rc == 1) {
                // a stream transport may complete sends whose bytes reached the dead peer's socket buffer,
                // but none after one has failed
                assertEquals(0, sendErrors, "send " + ok.context + " succeeded after an earlier one failed");
                open.remove(ok.context);
            } else if (rc == -Errno.EAVAIL) {
                s.txCq.readError(err, 0);
                assertTrue(err.err != 0, "an error completion carries an errno: " + err);
                sendErrors++;
                open.remove(err.context);
            }
            drainReceives(me, open, err, true);
            if (!c.isMsg() && !cancelled && open.stream().allMatch(recvs::contains)) {
                // connectionless receives from FI_ADDR_UNSPEC may legitimately wait for any other peer
                cancelled = true;
                recvs.forEach(s.ep::cancel);
            }
            me.poller.drive();
        }
        assertTrue(sendErrors > 0, "no send to the killed receiver failed, though more were in flight than it had"
                + " receives posted");
    }

    /** The peer sends, the survivor receives. */
    private void receiveFrom(FabricCase c, Survivor me, PeerProcess peer, Fault fault, Arena arena, long size)
            throws Exception {
        Side s = me.side;
        FaultPeer.Stream rx = new FaultPeer.Stream(s, arena, WINDOW, size);
        Set<Object> open = new HashSet<>();
        for (int i = 0; i < WINDOW; i++) {
            int slot = i;
            me.poller.post("fi_recv", () -> rx.recv(slot));
            open.add(slot);
        }
        peer.send("GO");
        CqEntry ok = new CqEntry();
        CqErrEntry err = new CqErrEntry();
        int[] got = {0};
        long deadline = deadline(BOUND_MS);
        while (got[0] < BEFORE_FREEZE) {
            receiveOne(me, rx, ok, err, got, "before the fault");
            checkDeadline(deadline, "the first " + BEFORE_FREEZE + " receives");
        }
        peer.freeze();
        long thaw = deadline(FROZEN_MS);
        while (System.nanoTime() - thaw < 0) {
            receiveOne(me, rx, ok, err, got, "while the peer is frozen");
        }
        assertTrue(got[0] < COUNT, "the frozen sender's stream is not over yet");
        dump.note(fault + " after " + got[0] + " of " + COUNT + " messages");
        if (fault == Fault.FREEZE_THEN_CONTINUE) {
            peer.thaw();
            deadline = deadline(BOUND_MS);
            while (got[0] < COUNT) {
                receiveOne(me, rx, ok, err, got, "after SIGCONT");
                checkDeadline(deadline, "the stream after SIGCONT (" + got[0] + " of " + COUNT + " received)");
            }
            // the last window was not reposted, so no receive is left
            assertEquals(Integer.toString(COUNT), peer.expect("SENT", BOUND_MS), "messages the peer sent");
            return;
        }
        peer.kill();
        boolean ended = !c.isMsg();
        deadline = deadline(BOUND_MS);
        long cancelAt = deadline(1_000);
        boolean cancelled = false;
        while (!open.isEmpty() || !ended) {
            checkDeadline(deadline, "after the peer was killed, receives still pending: " + open
                    + (ended ? "" : ", and no FI_SHUTDOWN or EQ error"));
            ended |= me.connectionEnded();
            int rc = s.rxCq.read(ok);
            if (rc == 1) {
                // bytes the peer sent before it died may still arrive; they must be the next message, whole
                assertNull(rx.check((int) ok.context, got[0], ok.len), "a receive completed after the kill");
                got[0]++;
                open.remove(ok.context); // not reposted: the sender is gone
            } else if (rc == -Errno.EAVAIL) {
                s.rxCq.readError(err, 0);
                assertTrue(err.err != 0, "an error completion carries an errno: " + err);
                open.remove(err.context);
            }
            if (!c.isMsg() && !cancelled && System.nanoTime() - cancelAt > 0) {
                // connectionless receives from FI_ADDR_UNSPEC may legitimately wait for any other peer
                cancelled = true;
                Set.copyOf(open).forEach(s.ep::cancel);
            }
            me.poller.drive();
        }
    }

    private void receiveOne(Survivor me, FaultPeer.Stream rx, CqEntry ok, CqErrEntry err, int[] got, String when) {
        int rc = me.poller.awaitCq(me.side.rxCq, ok, err, 10);
        if (rc == -Errno.EAVAIL) {
            fail("a receive " + when + " failed: " + err);
        }
        if (rc == 1) {
            int slot = (int) ok.context;
            assertNull(rx.check(slot, got[0], ok.len), "receive " + when);
            got[0]++;
            if (got[0] + WINDOW <= COUNT) {
                me.poller.post("fi_recv repost", () -> rx.recv(slot));
            }
        }
    }

    private static int fillWindow(FaultPeer.Stream tx, Side s, Set<Object> pending, int next, int done) {
        while (next < COUNT && next - done < WINDOW) {
            int rc = tx.send(next, s.peer);
            if (rc == -Errno.EAGAIN) {
                break; // a full queue or an RDM connection being set up
            }
            assertEquals(0, rc, "fi_send " + next + ": " + Errno.name(rc));
            pending.add(next);
            next++;
        }
        return next;
    }

    private static List<Object> postSurvivorReceives(Survivor me, Arena arena) {
        MemorySegment buf = Mem.alloc(arena, 4096L * SURVIVOR_RECVS);
        var mr = me.side.desc(buf);
        List<Object> ctxs = new ArrayList<>();
        for (int i = 0; i < SURVIVOR_RECVS; i++) {
            String ctx = "recv-" + i;
            MemorySegment slot = buf.asSlice(4096L * i, 4096);
            me.poller.post("fi_recv", () -> me.side.ep.recv(slot, mr, Fabrics.ADDR_UNSPEC, ctx));
            ctxs.add(ctx);
        }
        return ctxs;
    }

    /** Takes receive completions for {@code open}; a receive the peer never answered must not succeed. */
    private static void drainReceives(Survivor me, Set<Object> open, CqErrEntry err, boolean noneMaySucceed) {
        CqEntry ok = new CqEntry();
        int rc = me.side.rxCq.read(ok);
        if (rc == 1) {
            assertTrue(!noneMaySucceed, "a receive completed though the peer never sent: " + ok);
            open.remove(ok.context);
        } else if (rc == -Errno.EAVAIL) {
            me.side.rxCq.readError(err, 0);
            assertTrue(err.err != 0, "an error completion carries an errno: " + err);
            open.remove(err.context);
        }
    }

    /**
     * Cancels receives that no message will fill and waits for each to complete with an error (FI_ECANCELED).
     * fi_cancel is optional: where it answers -FI_ENOSYS (libfabric's verbs MSG endpoints, which cannot take a
     * posted work request back), fi_shutdown of the connection must end them instead, each with an error
     * completion; a connectionless endpoint without fi_cancel could never end them, and fails.
     */
    private static void cancelAll(FabricCase c, Survivor me, List<Object> ctxs, CompletionQueue cq) {
        Set<Object> open = new HashSet<>(ctxs);
        boolean noCancel = false;
        for (Object ctx : ctxs) {
            noCancel |= me.side.ep.cancel(ctx) == -Errno.ENOSYS;
        }
        if (noCancel) {
            assertTrue(c.isMsg(), c.id() + ": fi_cancel answers -FI_ENOSYS on a connectionless endpoint, so a"
                    + " receive no peer fills can never end");
            me.side.ep.shutdown(0);
        }
        CqErrEntry err = new CqErrEntry();
        long deadline = deadline(BOUND_MS);
        while (!open.isEmpty()) {
            checkDeadline(deadline, "cancelled receives still pending: " + open);
            drainReceives(me, open, err, true);
            me.poller.drive();
        }
    }

    private static void assertNoErrorYet(CqErrEntry err, String what) {
        if (err.err != 0) {
            fail(what + " failed: " + err);
        }
    }

    /** Opens and closes a side once, so what a provider keeps for the process's lifetime is not counted. */
    private void warmUp(FabricCase c) {
        EndpointPair.openSide(new Side("warm-up", c, dump), c, dump, new EndpointPair.Options(), c.freshInfo(),
                new io.jfabric.conformance.Poller());
        assertTrue(dump.closeTracked().isEmpty(), "closing the warm-up side");
    }

    static List<Path> regionsOf(long pid) throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.filter(p -> p.getFileName().toString().startsWith("jfabric-shm-" + pid + "-")).toList();
        }
    }

    /** {@code ms} from now, stretched by the suite's time scale as every other bounded wait is ({@link Slow}). */
    static long deadline(long ms) {
        return System.nanoTime() + Slow.ms(ms) * 1_000_000L;
    }

    static void checkDeadline(long deadline, String what) {
        if (System.nanoTime() - deadline > 0) {
            fail("not done within the bound: " + what);
        }
    }
}
