package io.jfabric.conformance.fault;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.conformance.EndpointPair;
import io.jfabric.conformance.FabricCase;
import io.jfabric.conformance.ForEachFabric;
import io.jfabric.conformance.Gate;
import io.jfabric.conformance.PeerProcess;
import io.jfabric.conformance.Poller;
import io.jfabric.conformance.Side;
import io.jfabric.conformance.StateDump;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Thousands of peers against one endpoint: {@link #PROCESSES} processes open {@link #PER_PROCESS} endpoints
 * each and every one sends a numbered message to a single endpoint here, which must therefore accept (RDM
 * over connections: set up) one connection per peer. Every message arrives exactly once and intact within
 * {@link #BOUND_MS} of the swarms being ready; the receiving process's file descriptors stay within its limit
 * and its resident memory growth per peer is measured and bounded.
 *
 * <p>The default, 2 x 250 peers, takes about 20 s per provider on a shared 2-core machine. The issue's
 * thousands: {@code -Djfabric.fault.processes=4 -Djfabric.fault.peersPerProcess=500} (2,000 peers) passed on
 * tcp;ofi_rxm twice: 58 s at a load average of 10 (endpoints opened in 24 s, all heard 30 s later) and 77 s
 * (opened in 58 s, all heard 19 s later), 151-164 KiB resident and 3 descriptors per peer at the hub (a socket
 * and its readiness probe's epoll and event descriptors; since FI_TCP_READ_PROBE defaults to off, one). Opening 500 rxm endpoints per swarm JVM, four
 * swarms on two cores, is the slow part (each opens a core EQ, CQ and listening endpoint).
 *
 * <p>File descriptors: the JVM raises its soft RLIMIT_NOFILE to the hard limit at start (HotSpot's
 * {@code MaxFDLimit}, on by default), so this test reads the resulting limit from /proc/self/limits and is
 * not run, with the numbers, when it is below what the hub (3 per peer) or one swarm (about 6 per endpoint:
 * its listener, its connection and their probes) needs. Raise the hard limit ({@code ulimit -Hn}) to run more.
 */
@Timeout(270) // SETUP_MS + BOUND_MS + a minute for the swarms to start and stop
class ManyPeersTest {
    static final int PROCESSES = Integer.getInteger("jfabric.fault.processes", 2);
    static final int PER_PROCESS = Integer.getInteger("jfabric.fault.peersPerProcess", 250);
    /**
     * Peers per process for the native libfabric configurations and verbs: 2 x 50 passes on them; with 2 x 250
     * (runs of 2026-12-01) a libfabric:tcp;ofi_rxm swarm and, in the Soft-RoCE VM, a verbs;ofi_rxm swarm exited
     * before printing their address, and libfabric:shm's hub heard none of 500 within the bound. Not yet traced
     * (issues 7 and 8); a verbs;ofi_rxm connection preposts msg_rx_size registered buffers, 250 per swarm.
     */
    static final int NATIVE_PER_PROCESS = Integer.getInteger("jfabric.fault.nativePeersPerProcess", 50);
    static final long SIZE = 64;
    static final int RX_WINDOW = 64;
    /** Time for every swarm to open its endpoints. */
    static final long SETUP_MS = 120_000;
    /** Time for every message to arrive once the swarms are ready. */
    static final long BOUND_MS = 90_000;
    /** Resident growth per peer allowed at the receiver (its connection state and receive buffers). */
    static final long MAX_BYTES_PER_PEER = 512 << 10;
    /**
     * What a verbs;ofi_rxm connection preposts on top: an RC queue pair has no socket buffer to hold what arrives
     * unposted, so each connection posts msg_rx_size (128) receive buffers of buffer_size (16 KiB) plus the rxm
     * header at once, as libfabric's rxm over verbs does (2 MiB per peer; an SRQ would share them).
     */
    static final long VERBS_RX_BYTES_PER_PEER = 128L * (16_384 + 64);
    /**
     * What the hub's JVM may grow by whatever the peer count (JIT code, metaspace, GC structures made during the
     * run), left out before the per-peer bound is applied; the heap counts by its live growth, not by how far the
     * GC expanded it. At 2 x 50 verbs;ofi_rxm peers in the Soft-RoCE VM the raw resident growth of the same code
     * went from 195 to 348 MiB between runs (200 MiB of it the preposted buffers), several hundred KiB a peer of
     * noise at that count; at the host's 2 x 250 the allowance is 130 KiB a peer, and a cost that grows with the
     * peers still fails.
     */
    static final long JVM_ALLOWANCE = 64L << 20;
    /**
     * On top for verbs;ofi_rxm, which runs only in the Soft-RoCE VM at 2 x 50 peers: the raw resident growth of
     * the same code there measured 195, 266 and 348 MiB in three full-suite runs and 238-244 MiB in four runs of
     * this class alone (200 MiB of it the preposted buffers). The spread is not traced yet (docs/conformance.md);
     * until it is, the check at that count catches a per-peer cost only above this much more.
     */
    static final long VERBS_VM_SPREAD = 128L << 20;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void everyPeerIsHeardOnce(FabricCase c) throws Exception {
        Gate.messaging(c);
        Gate.connectionless(c);
        dump.caseUnderTest(c);
        Side me = new Side("hub", c, dump);
        Poller poller = new Poller();
        EndpointPair.openSide(me, c, dump, new EndpointPair.Options(), c.freshInfo(), poller);
        int perProcess = c.provider().startsWith("libfabric:") || c.provider().startsWith("verbs")
                ? NATIVE_PER_PROCESS : PER_PROCESS;
        int total = PROCESSES * perProcess;
        long fdLimit = fdLimit();
        long need = Math.max(3L * total, 6L * perProcess) + 256;
        Gate.require(fdLimit >= need, c, "needs " + need + " file descriptors per process; the limit here is "
                + fdLimit + " (raise ulimit -Hn)");
        List<PeerProcess> swarms = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            swarms.add(PeerProcess.start(c, "swarm", dump, FaultPeer.class,
                    List.of(Integer.toString(perProcess), Long.toString(SIZE), "lifetime=" + (SETUP_MS + BOUND_MS + 30_000)),
                    List.of()));
        }
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long startCommitted = rt.totalMemory();
        long startLive = rt.totalMemory() - rt.freeMemory();
        long startRss = SlowReceiverTest.residentBytes();
        long peakRss = startRss;
        int startFds = ResourceLevel.readFds().size();
        int peakFds = startFds;
        String hub = HexFormat.of().formatHex(me.ep.getName());
        long started = System.nanoTime();
        for (int i = 0; i < PROCESSES; i++) {
            swarms.get(i).expectAddress(SETUP_MS);
            swarms.get(i).send("PEER " + hub);
            swarms.get(i).send("BASE " + i * perProcess);
        }
        long ready = System.nanoTime();
        BitSet heard = new BitSet(total);
        try (Arena arena = Arena.ofShared()) {
            FaultPeer.Stream rx = new FaultPeer.Stream(me, arena, RX_WINDOW, SIZE);
            for (int i = 0; i < RX_WINDOW; i++) {
                int slot = i;
                poller.post("fi_recv", () -> rx.recv(slot));
            }
            CqEntry ok = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            long deadline = PeerFailureTest.deadline(BOUND_MS);
            int got = 0;
            while (got < total) {
                PeerFailureTest.checkDeadline(deadline, got + " of " + total + " peers heard");
                int rc = me.rxCq.read(ok);
                if (rc == -Errno.EAVAIL) {
                    me.rxCq.readError(err, 0);
                    fail("a receive failed: " + err);
                }
                if (rc != 1) {
                    continue;
                }
                int slot = (int) ok.context;
                int id = Sequenced.numberOf(rx.slot(slot), ok.len, SIZE);
                assertTrue(id >= 0 && id < total, "a torn or unknown message (" + ok + ")");
                assertTrue(!heard.get(id), "message " + id + " arrived twice");
                heard.set(id);
                got++;
                poller.post("fi_recv", () -> rx.recv(slot));
                if ((got & 127) == 0) {
                    peakRss = Math.max(peakRss, SlowReceiverTest.residentBytes());
                    peakFds = Math.max(peakFds, ResourceLevel.readFds().size());
                }
            }
        }
        long heardAll = System.nanoTime();
        peakRss = Math.max(peakRss, SlowReceiverTest.residentBytes());
        peakFds = Math.max(peakFds, ResourceLevel.readFds().size());
        for (PeerProcess s : swarms) {
            assertEquals(Integer.toString(perProcess), s.expect("SENT", 30_000), "a swarm's sends");
        }
        long perPeer = (peakRss - startRss) / total;
        // the Java heap counts by what it holds live, not by how far the GC chose to expand it meanwhile
        long heapExpansion = Math.max(0, rt.totalMemory() - startCommitted);
        System.gc();
        long liveGrowth = Math.max(0, rt.totalMemory() - rt.freeMemory() - startLive);
        long attributed = peakRss - startRss - heapExpansion + liveGrowth;
        String measured = c.id() + ": " + total + " peers, resident growth " + ((peakRss - startRss) >> 20)
                + " MiB (" + (perPeer >> 10) + " KiB per peer; heap expansion " + (heapExpansion >> 20)
                + " MiB, live heap growth " + (liveGrowth >> 20) + " MiB), descriptors " + startFds + " -> " + peakFds
                + " (limit " + fdLimit + "), endpoints opened in " + (ready - started) / 1_000_000 + " ms, all heard "
                + (heardAll - ready) / 1_000_000 + " ms later";
        dump.note(measured);
        System.out.println("[fault] many peers " + measured);
        // native libfabric's memory is its own (fi_rxm(7) sets no bound; 335-876 KiB per peer seen at 2 x 50, where
        // fixed costs dominate): noted above, held to jfabric's bound only for jfabric's providers
        if (!c.provider().startsWith("libfabric:")) {
            long bound = c.provider().startsWith("verbs") ? MAX_BYTES_PER_PEER + VERBS_RX_BYTES_PER_PEER : MAX_BYTES_PER_PEER;
            long allowance = JVM_ALLOWANCE + (c.provider().startsWith("verbs") ? VERBS_VM_SPREAD : 0);
            long beyondJvm = Math.max(0, attributed - allowance) / total;
            assertTrue(beyondJvm <= bound, "resident memory per peer beyond a fixed " + (allowance >> 20)
                    + " MiB allowance " + (beyondJvm >> 10) + " KiB (bound " + (bound >> 10)
                    + " KiB)");
        }
    }

    static long fdLimit() throws java.io.IOException {
        for (String l : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/limits"))) {
            if (l.startsWith("Max open files")) {
                String soft = l.substring("Max open files".length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        return 1024;
    }
}
