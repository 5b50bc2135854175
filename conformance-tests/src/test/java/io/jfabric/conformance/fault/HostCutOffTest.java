package io.jfabric.conformance.fault;

import io.jfabric.AddressFormat;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.conformance.FabricCase;
import io.jfabric.conformance.ForEachFabric;
import io.jfabric.conformance.Gate;
import io.jfabric.conformance.PeerProcess;
import io.jfabric.conformance.Side;
import io.jfabric.conformance.StateDump;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A host cut off in the middle of a transfer: the peer receives a stream slowly across a link the test cuts
 * with sends in flight ({@link CutOffLink}). Over sockets the peer runs in a network namespace of its own, joined
 * to this one by a veth pair ({@link NetNs}), whose end the test sets down; with the tcp provider's
 * {@code user_timeout} at {@link #USER_TIMEOUT_MS} every pending send fails within that timeout plus
 * {@link #SLACK_MS}. Over verbs the peer runs on this host's second RoCE device and netem drops every packet
 * between the two ({@link RoceLinkCut}); the transport's bounded retries (on a send, or on the keepalive's probe
 * where the sends wait on the peer) fail every pending send within {@link #VERBS_BOUND_MS}. An MSG endpoint also
 * gets FI_SHUTDOWN or an EQ error. Then the link comes back up: over MSG a new connection carries a new stream;
 * over tcp;ofi_rxm and verbs;ofi_rxm the same endpoint's next sends reconnect to the same peer and the stream
 * resumes at the first message that failed, arriving whole and in order; the peer takes a whole copy of a message
 * it already has as a resend (a send that failed with the link may have been delivered before it went: its
 * acknowledgement was lost, as libfabric's rxm too reports such a send failed). Before that, up to {@link #MAX_REFUSALS} reconnects may
 * fail, each reported once (a send returning FI_ECONNREFUSED, or an error completion without an operation
 * context, as libfabric's rxm reports a failed connect): right after the link returns, the kernel's
 * neighbour entry for the peer may still be failed (EHOSTUNREACH). Root only (namespaces, tc); not run with the
 * reason otherwise.
 */
@Timeout(150)
class HostCutOffTest {
    static final int USER_TIMEOUT_MS = 2_000;
    static final long SLACK_MS = 6_000;
    static final int COUNT = 96;
    static final long SIZE = 256 << 10;
    /** 16 MiB: more than the kernel's socket buffers at both ends hold, so some sends must still be queued at the cut. */
    static final int WINDOW = 64;
    static final int BEFORE_CUT = 8;
    static final long SINK_DELAY_MS = 5;
    /**
     * Over verbs: slow enough that the stream outlasts the two tc commands of the cut in the Soft-RoCE VM, where
     * starting a process takes a good part of a second and the sink's pauses are all that keep sends pending.
     */
    static final long VERBS_SINK_DELAY_MS = 100;
    /**
     * Seven ACK timeouts of 2.1 s (rdma_cm's on Soft-RoCE) before verbs fails a send or a probe, the keepalive's
     * interval before the probe, and slack for the VM.
     */
    static final long VERBS_BOUND_MS = 30_000;
    static final long BOUND_MS = 30_000;
    /** Reconnects refused while the peer still holds its side of the dead connection (reported, see stream()). */
    static final int MAX_REFUSALS = 3;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void errorsWithinTheTimeoutThenReconnects(FabricCase c) throws Exception {
        Gate.messaging(c);
        Gate.require(c.info().addrFormat == AddressFormat.SOCKADDR_IN && c.info().srcAddr != null, c,
                "does not address peers by IPv4 address, so a host cut off by a network link does not apply");
        Gate.require(!c.id().startsWith("libfabric:"), c, "is native libfabric 1.17, whose tcp (under rxm and"
                + " udp too) has no user-timeout setting (`fi_info -e` lists none; jfabric's tcp has"
                + " FI_TCP_USER_TIMEOUT): a cut link fails there only after the kernel's retransmission timeout,"
                + " about 15 minutes, far past this test's bound");
        boolean verbs = c.provider().startsWith("verbs");
        String[] why = new String[1];
        if (!verbs) {
            why[0] = NetNs.unavailableReason();
        }
        String property = "jfabric.tcp.user_timeout";
        System.setProperty(property, Integer.toString(USER_TIMEOUT_MS));
        try (CutOffLink ns = verbs ? RoceLinkCut.find(why) : why[0] == null ? NetNs.create() : null) {
            Assumptions.assumeTrue(why[0] == null, () -> "not run: " + why[0]);
            dump.caseUnderTest(c);
            dump.note(ns.toString());
            List<String> launcher = new ArrayList<>(ns.launcher());
            launcher.addAll(List.of("env", "FI_TCP_USER_TIMEOUT=" + USER_TIMEOUT_MS));
            List<String> peerArgs = List.of(Integer.toString(COUNT), Long.toString(SIZE), "src=" + ns.peerAddr,
                    "delay=" + (verbs ? VERBS_SINK_DELAY_MS : SINK_DELAY_MS), "survive");
            PeerProcess peer = PeerProcess.start(c, "sink", dump, FaultPeer.class, peerArgs, launcher);
            Survivor me = Survivor.join(c, Ipv4.infoAt(c, ns.hostAddr), peer, dump);
            try (Arena arena = Arena.ofShared()) {
                FaultPeer.Stream tx = new FaultPeer.Stream(me.side, arena, WINDOW, SIZE);
                int firstFailed = cutOff(c, me, tx, ns, verbs ? VERBS_BOUND_MS : USER_TIMEOUT_MS + SLACK_MS);
                ns.link(true);
                if (c.isMsg()) {
                    newConnectionWorks(c, ns, launcher, arena);
                } else {
                    // the same endpoint, the same peer: the next send reconnects, the stream resumes
                    stream(me, tx, firstFailed, COUNT);
                    assertEquals(Integer.toString(COUNT), peer.expect("GOT", BOUND_MS),
                            "messages the peer received after the reconnect");
                }
            }
        } finally {
            System.clearProperty(property);
        }
    }

    /** Streams until {@link #BEFORE_CUT} sends are done, cuts the link, waits for every pending send to fail. */
    private int cutOff(FabricCase c, Survivor me, FaultPeer.Stream tx, CutOffLink ns, long bound) throws Exception {
        Side s = me.side;
        TreeSet<Integer> pending = new TreeSet<>();
        CqEntry ok = new CqEntry();
        CqErrEntry err = new CqErrEntry();
        int next = 0;
        int done = 0;
        long deadline = PeerFailureTest.deadline(BOUND_MS);
        while (done < BEFORE_CUT) {
            while (next < COUNT && pending.size() < WINDOW) {
                int seq = next;
                int rc = me.poller.tryPost(() -> tx.send(seq, s.peer));
                assertEquals(0, rc, "fi_send " + seq + " before the cut: " + Errno.name(rc));
                pending.add(next++);
            }
            int rc = me.poller.awaitCq(s.txCq, ok, err, 10);
            assertTrue(rc != -Errno.EAVAIL, "a send before the cut failed: " + err);
            if (rc == 1) {
                pending.remove((Integer) ok.context);
                done++;
            }
            PeerFailureTest.checkDeadline(deadline, "the first " + BEFORE_CUT + " sends");
        }
        ns.link(false);
        long cutAt = System.nanoTime();
        dump.note("link down with sends " + pending + " in flight");
        int firstFailed = Integer.MAX_VALUE;
        boolean ended = !c.isMsg();
        deadline = PeerFailureTest.deadline(bound);
        while (!pending.isEmpty() || !ended) {
            PeerFailureTest.checkDeadline(deadline, bound + " ms after the link went down, still pending: " + pending
                    + (ended ? "" : ", and no FI_SHUTDOWN"));
            ended |= me.connectionEnded();
            int rc = s.txCq.read(ok);
            if (rc == 1) {
                assertEquals(Integer.MAX_VALUE, firstFailed, "send " + ok.context + " succeeded after "
                        + firstFailed + " had failed");
                pending.remove((Integer) ok.context);
            } else if (rc == -Errno.EAVAIL) {
                s.txCq.readError(err, 0);
                assertTrue(err.err != 0, "an error completion carries an errno: " + err);
                firstFailed = Math.min(firstFailed, (Integer) err.context);
                pending.remove((Integer) err.context);
            }
            me.poller.drive();
        }
        long ms = (System.nanoTime() - cutAt) / 1_000_000L;
        dump.note("all sends ended " + ms + " ms after the cut; first failed " + firstFailed);
        System.out.println("[fault] host cut off " + c.id() + ": errors " + ms + " ms after the link went down"
                + " (bound " + bound + " ms)");
        assertTrue(firstFailed != Integer.MAX_VALUE, "no send failed though the link went down with "
                + WINDOW + " x " + SIZE + " B in flight to a slow receiver");
        return firstFailed;
    }

    /** Sends messages {@code from} .. {@code to - 1} with a window; every one must complete successfully. */
    private static void stream(Survivor me, FaultPeer.Stream tx, int from, int to) {
        CqEntry ok = new CqEntry();
        CqErrEntry err = new CqErrEntry();
        int next = from;
        int done = from;
        int refusals = 0;
        long deadline = PeerFailureTest.deadline(BOUND_MS);
        while (done < to) {
            while (next < to && next - done < 16) {
                int seq = next;
                int rc = me.poller.tryPost(() -> tx.send(seq, me.side.peer));
                if ((rc == -Errno.ECONNREFUSED || rc == -Errno.EHOSTUNREACH) && refusals < MAX_REFUSALS) {
                    // the peer may still hold the connection that died with the link and refuse ours until
                    // its own keepalive ends it; the failure is reported once per attempt, nothing is lost
                    refusals++;
                    continue;
                }
                assertEquals(0, rc, "fi_send " + seq + " after the link came back (" + refusals + " refused before): "
                        + Errno.name(rc));
                next++;
            }
            int rc = me.poller.awaitCq(me.side.txCq, ok, err, 10);
            if (rc == -Errno.EAVAIL && err.context == null && refusals < MAX_REFUSALS
                    && (err.err == Errno.ECONNREFUSED || err.err == Errno.EHOSTUNREACH)) {
                // rxm reports a failed connect as an error completion without an operation context (the sends
                // that got EAGAIN were never accepted); right after the link returns the first connect may
                // find the neighbour entry still failed (EHOSTUNREACH). The next send reconnects.
                refusals++;
                continue;
            }
            assertTrue(rc != -Errno.EAVAIL, "a send after the link came back failed: " + err);
            if (rc == 1) {
                done++;
            }
            PeerFailureTest.checkDeadline(deadline, "the stream after the link came back (" + done + " of " + to + ")");
        }
        if (refusals > 0) {
            System.out.println("[fault] host cut off: " + refusals + " reconnect(s) refused with FI_ECONNREFUSED"
                    + " before the stream resumed");
        }
    }

    private void newConnectionWorks(FabricCase c, CutOffLink ns, List<String> launcher, Arena arena) throws Exception {
        int count = 16;
        PeerProcess peer = PeerProcess.start(c, "sink", dump, FaultPeer.class,
                List.of(Integer.toString(count), Long.toString(SIZE), "src=" + ns.peerAddr), launcher);
        Survivor me = Survivor.join(c, Ipv4.infoAt(c, ns.hostAddr), peer, dump);
        stream(me, new FaultPeer.Stream(me.side, arena, WINDOW, SIZE), 0, count);
        assertEquals(Integer.toString(count), peer.expect("GOT", BOUND_MS), "messages over the new connection");
    }
}
