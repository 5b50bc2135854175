package io.jfabric.provider.shm;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** shm between two real JVMs: messages of every protocol, RMA, and a sender killed with SIGKILL. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TwoProcessTest {

    static Process startPeer(String... args) throws Exception {
        return startPeerWith(List.of(), args);
    }

    /** {@link #startPeer} with JVM options of the test's, such as provider parameters. */
    static Process startPeerWith(List<String> jvmOptions, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ShmPeerMain.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    static String readAddress(Process p) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
        String line = r.readLine();
        assertTrue(line != null && line.startsWith("ADDR "), "peer printed " + line);
        return line.substring(5);
    }

    @Test
    void everyProtocolAndRmaAcrossTwoJvms() throws Exception {
        int count = 60;
        try (ShmNode node = new ShmNode(); Arena arena = Arena.ofShared()) {
            MemorySegment target = arena.allocate(65536);
            MemoryRegion mr = node.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 42);
            long addr = (node.info.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? target.address() : 0;
            Process child = startPeer("send", new String(node.name(), StandardCharsets.US_ASCII),
                    Integer.toString(count), Long.toString(addr), "42");
            try {
                String childName = readAddress(child);
                long childAddr = node.av.insert(childName.getBytes(StandardCharsets.US_ASCII));
                CqEntry e = new CqEntry();
                CqErrEntry err = new CqErrEntry();
                MemorySegment buf = arena.allocate(300_000);
                MemorySegment expected = arena.allocate(300_000);
                for (long i = 0; i < count; i++) {
                    assertEquals(0, node.ep.trecv(buf, null, childAddr, i, 0, "r" + i));
                    assertEquals(1, node.next(e, err, 20_000), "message " + i + ": " + err.err + " " + node.ep);
                    int size = ShmPeerMain.sizeOf(i);
                    assertEquals(size, e.len);
                    assertEquals(i, e.tag);
                    assertEquals(childAddr, e.srcAddr);
                    MemorySegment want = expected.asSlice(0, size);
                    ShmPeerMain.pattern(want, i);
                    assertEquals(-1, want.mismatch(buf.asSlice(0, size)), "bytes of message " + i);
                }
                MemorySegment verdict = arena.allocate(256);
                assertEquals(0, node.ep.trecv(verdict, null, childAddr, ShmPeerMain.DONE, 0, "done"));
                assertEquals(1, node.next(e, err, 20_000), "no verdict: " + err.err);
                assertEquals("ok", verdict.getString(0));
                MemorySegment want = arena.allocate(65536);
                ShmPeerMain.pattern(want, 77);
                assertEquals(-1, want.mismatch(target), "the child's RMA write landed in our registered memory");
                assertEquals(0, node.ep.tsend(arena.allocateFrom("bye"), null, childAddr, ShmPeerMain.BYE, "bye"));
                assertEquals(1, node.next(e, err, 10_000));
                assertTrue(child.waitFor(20, TimeUnit.SECONDS));
                assertEquals(0, child.exitValue());
                assertFalse(Files.exists(Path.of(ShmParams.DIRECTORY.get(), childName.substring("fi_shm://".length()))),
                        "the child's region is unlinked when it closes");
            } finally {
                child.destroyForcibly();
                mr.close();
            }
        }
    }

    @Test
    void killedSenderLeavesTheReceiverWorkingAndItsRegionIsReclaimed() throws Exception {
        try (ShmNode node = new ShmNode(); ShmNode local = new ShmNode(); Arena arena = Arena.ofShared()) {
            Process child = startPeer("stream", new String(node.name(), StandardCharsets.US_ASCII));
            String childName;
            try {
                childName = readAddress(child);
                long childAddr = node.av.insert(childName.getBytes(StandardCharsets.US_ASCII));
                CqEntry e = new CqEntry();
                CqErrEntry err = new CqErrEntry();
                MemorySegment buf = arena.allocate(300_000);
                MemorySegment want = arena.allocate(300_000);
                // take a few messages of every size, verifying each, then kill the sender mid-stream
                for (long i = 0; i < 40; i++) {
                    assertEquals(0, node.ep.trecv(buf, null, childAddr, i, 0, "r"));
                    assertEquals(1, node.next(e, err, 20_000), "message " + i + ": " + err.err);
                    int size = ShmPeerMain.sizeOf(i);
                    ShmPeerMain.pattern(want.asSlice(0, size), i);
                    assertEquals(-1, want.asSlice(0, size).mismatch(buf.asSlice(0, size)));
                }
                child.destroyForcibly(); // SIGKILL
                assertTrue(child.waitFor(10, TimeUnit.SECONDS));
                // whatever the child left in our ring is consumed or dropped, never a hang
                MemorySegment any = arena.allocate(300_000);
                for (int i = 0; i < 10; i++) {
                    node.ep.trecv(any, null, childAddr, 0, -1L, null);
                }
                node.progressFor(200);
                // sends to the dead peer fail with an error (its death is noticed within 100 us of wall time)
                int rc = 0;
                for (int i = 0; i < 5000 && rc == 0; i++) {
                    rc = node.ep.inject(arena.allocate(8), childAddr);
                    node.cq.read(new CqEntry[0], 0);
                }
                assertEquals(-Errno.ECONNRESET, rc);
                // the receiver carries on with other senders
                long localToNode = local.insert(node);
                MemorySegment msg = arena.allocateFrom("still alive");
                MemorySegment got = arena.allocate(64);
                assertEquals(0, node.ep.trecv(got, null, node.av.insert(local.name()), 5, 0, "alive"));
                assertEquals(0, local.ep.tsend(msg, null, localToNode, 5, "s"));
                int r;
                do {
                    r = node.next(e, err, 5_000);
                } while (r == -Errno.EAVAIL || (r == 1 && e.context != "alive"));
                assertEquals(1, r, "no message from the live sender: " + node.ep);
                assertEquals("still alive", got.getString(0));
            } finally {
                child.destroyForcibly();
            }
            // the dead process's region is found stale and removed by the next sweep (as at the next start)
            Path region = Path.of(ShmParams.DIRECTORY.get(), childName.substring("fi_shm://".length()));
            // another fabric of this user may have swept it already (every fabric open sweeps); either way
            // the dead region must be reclaimed, and a sweep that finds it must say so
            if (Files.exists(region)) {
                assertTrue(RegionCleaner.sweepStale(region.getParent()) >= 1, "the stale region was not swept");
            }
            assertFalse(Files.exists(region), "the dead process's region is still there");
        }
    }

    /**
     * The receiver is SIGKILLed: an operation waiting for its ACK (CMA size) completes with
     * ECONNRESET; a send posted after the death that asks for a completion completes with ECONNRESET
     * (never a success for a message nobody took); and within {@link Peer#SEND_CLOCK_EVERY} calls posted
     * more than the check interval after the death, sends fail at once, whatever their size.
     */
    /**
     * A peer's process exit is heard when it happens (its pidfd, watched by a thread of the provider's), not at the
     * next liveness scan of a progress call: with no call into the endpoint at all, the peer is gone and the domain
     * has counted the exit, which a progress call compares to decide to scan at once.
     */
    @Test
    void aPeerProcessExitIsHeardWithoutAnyCallIntoTheEndpoint() throws Exception {
        try (ShmNode node = new ShmNode()) {
            Process child = startPeer("idle", new String(node.name(), StandardCharsets.US_ASCII));
            try {
                long childAddr = node.av.insert(readAddress(child).getBytes(StandardCharsets.US_ASCII));
                Peer peer = ((ShmAv) node.av).peer(childAddr);
                ShmDomain domain = (ShmDomain) node.domain;
                int exitsBefore = domain.peerExits();
                assertFalse(peer.gone(), "the idle peer is alive");
                child.destroyForcibly(); // SIGKILL: its endpoint never says it closed
                assertTrue(child.waitFor(10, TimeUnit.SECONDS));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!peer.gone() && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertTrue(peer.gone(), "the killed peer is gone without a liveness check from this side");
                assertEquals(exitsBefore + 1, domain.peerExits(), "the domain counted one peer exit");
            } finally {
                child.destroyForcibly();
            }
        }
    }

    /**
     * A peer that closes its endpoint while its process lives on tells the peers its domain has mapped: one waiting
     * on it in sread finds its send failed at once. The waiting child's periodic liveness scan is set to a minute,
     * so only the close notice can end its wait within the bound.
     */
    @Test
    void aPeerEndpointsCloseIsHeardAtOnceByAPeerWaitingOnIt() throws Exception {
        try (ShmNode node = new ShmNode()) {
            Process child = startPeerWith(List.of("-Djfabric.shm.liveness_interval_ms=60000"), "waitclose",
                    new String(node.name(), StandardCharsets.US_ASCII));
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                        StandardCharsets.US_ASCII));
                String line = out.readLine();
                assertTrue(line != null && line.startsWith("ADDR "), "peer printed " + line);
                node.av.insert(line.substring(5).getBytes(StandardCharsets.US_ASCII));
                assertEquals("POSTED", out.readLine());
                node.ep.close(); // the process lives on: no pidfd tells the child
                CompletableFuture<String> result = CompletableFuture.supplyAsync(() -> {
                    try {
                        return out.readLine();
                    } catch (IOException ex) {
                        return ex.toString();
                    }
                });
                String done;
                try {
                    done = result.get(10, TimeUnit.SECONDS);
                } catch (TimeoutException ex) {
                    throw new AssertionError("the waiting child heard nothing of the endpoint's close in 10 s", ex);
                }
                assertEquals("DONE " + Errno.ECONNRESET, done,
                        "the child's send to the closed endpoint completes with ECONNRESET");
            } finally {
                child.destroyForcibly();
            }
        }
    }

    @Test
    void sendsToAKilledReceiverFailPromptly() throws Exception {
        try (ShmNode node = new ShmNode(); Arena arena = Arena.ofShared()) {
            Process child = startPeer("idle", new String(node.name(), StandardCharsets.US_ASCII));
            try {
                long childAddr = node.av.insert(readAddress(child).getBytes(StandardCharsets.US_ASCII));
                CqEntry e = new CqEntry();
                CqErrEntry err = new CqErrEntry();
                MemorySegment small = arena.allocate(8);
                MemorySegment bounce = arena.allocate(8 * 1024);
                MemorySegment big = arena.allocate(200_000);
                // alive: sends are accepted; the large one waits for the receiver, which never posts a receive
                assertEquals(0, node.ep.inject(small, childAddr));
                assertEquals(0, node.ep.tsend(big, null, childAddr, 1, "in flight"));
                child.destroyForcibly(); // SIGKILL
                assertTrue(child.waitFor(10, TimeUnit.SECONDS));
                // the process is reaped and the send path's check interval (100 us) has passed
                Thread.sleep(5);
                java.util.Set<Object> failed = new java.util.HashSet<>();
                int rc = node.ep.send(small, null, childAddr, "after death");
                if (rc == 0) {
                    failed.add("after death"); // accepted before the death was noticed: must fail later
                } else {
                    assertEquals(-Errno.ECONNRESET, rc);
                }
                int calls = 1;
                while (rc == 0 && calls < Peer.SEND_CLOCK_EVERY) {
                    rc = node.ep.inject(small, childAddr);
                    calls++;
                }
                assertEquals(-Errno.ECONNRESET, rc, "sends after the peer's death must fail within "
                        + Peer.SEND_CLOCK_EVERY + " calls");

                // once noticed, every later send of every size fails at once, with or without a completion
                assertEquals(-Errno.ECONNRESET, node.ep.inject(small, childAddr));
                assertEquals(-Errno.ECONNRESET, node.ep.send(small, null, childAddr, "inline"));
                assertEquals(-Errno.ECONNRESET, node.ep.tsend(bounce, null, childAddr, 2, "bounce"));
                assertEquals(-Errno.ECONNRESET, node.ep.tsend(big, null, childAddr, 3, "cma"));

                // the large send posted before the kill, and the send accepted after it, complete with an
                // error, not never and not with a success
                failed.add("in flight");
                java.util.Set<Object> seen = new java.util.HashSet<>();
                while (seen.size() < failed.size()) {
                    int r = node.next(e, err, 5_000);
                    assertEquals(-Errno.EAVAIL, r, "every send nobody took must complete with an error: " + seen);
                    assertEquals(Errno.ECONNRESET, err.err);
                    seen.add(err.context);
                }
                assertEquals(failed, seen);
                assertEquals(-Errno.EAGAIN, node.next(e, err, 100), "nothing else completes");
            } finally {
                child.destroyForcibly();
            }
        }
    }
}
