package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.MemoryRegion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Atomicity across processes: four {@link AtomicPeer} JVMs each add 1 to one target counter {@link #OPS} times
 * (10,000) with FI_SUM, then take turns in a critical section under an FI_CSWAP lock. The counter must end at
 * exactly 4 x OPS, the word incremented only under the lock at exactly 4 x rounds, and the lock free. In the
 * Soft-RoCE VM, where one rxm atomic over verbs takes about 10 ms, {@code -Djfabric.conformance.opsDivisor=10}
 * makes it 1,000 each ({@link Slow#ops}): the four still contend for tens of seconds, each over a window of 16
 * operations in flight, so a lost or doubled update still shows in the total.
 */
@Timeout(240)
class AtomicContentionTest {
    static final int PEERS = 4;
    static final int OPS = Slow.ops(10_000, 1_000);
    static final int ROUNDS = 100;
    static final long T = 180_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void fourProcessesSumExactlyAndHandAFiCswapLockAround(FabricCase c) throws Exception {
        c = AtomicTest.gate(c);
        Gate.connectionless(c);
        dump.caseUnderTest(c);
        Poller poller = new Poller();
        Side t = new Side("target", c, dump);
        EndpointPair.openSide(t, c, dump, new EndpointPair.Options(), c.freshInfo(), poller);
        List<PeerProcess> peers = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment words = Mem.alloc(arena, 64);
            Mem.fill(words, (byte) 0);
            MemoryRegion mr = t.register(words, Access.REMOTE_READ | Access.REMOTE_WRITE);
            String name = HexFormat.of().formatHex(t.ep.getName());
            for (int i = 0; i < PEERS; i++) {
                peers.add(PeerProcess.start(c, "atomic" + i, dump, AtomicPeer.class, List.of(name,
                        Long.toString(mr.key()), Long.toString(t.remoteAddr(mr, 0)), Long.toString(t.remoteAddr(mr, 8)),
                        Long.toString(t.remoteAddr(mr, 16)), Integer.toString(i + 1), Integer.toString(OPS),
                        Integer.toString(ROUNDS)), List.of()));
            }
            // the target's progress applies the atomics (shm): drive it while the peers run, sleeping in
            // fi_cq_sread between commands so that the five processes leave each other the cores
            Thread driver = Thread.ofPlatform().name("atomic-target-progress").start(() -> {
                io.jfabric.CqEntry[] none = {new io.jfabric.CqEntry()};
                while (!stop.get()) {
                    t.rxCq.sread(none, 1, 10);
                    t.txCq.read(none, 1);
                }
            });
            long started = System.nanoTime();
            try {
                for (PeerProcess p : peers) {
                    p.expect("SUMMED", T);
                }
                long summed = System.nanoTime();
                for (PeerProcess p : peers) {
                    p.expect("DONE", T);
                }
                // the phase times show how far a run is from the peers' lifetime (CI runs at time scale 1)
                System.out.printf("[atomic-contention] %s: FI_SUM phase %d ms, FI_CSWAP lock phase %d ms%n", c,
                        (summed - started) / 1_000_000, (System.nanoTime() - summed) / 1_000_000);
            } finally {
                stop.set(true);
                driver.join(10_000);
            }
            for (PeerProcess p : peers) {
                assertEquals(0, p.awaitExit(T), "peer exit status; its stderr is in " + p.log());
            }
            assertEquals((long) PEERS * OPS, words.get(ValueLayout.JAVA_LONG, 0), "counter after FI_SUM from "
                    + PEERS + " processes");
            assertEquals(0, words.get(ValueLayout.JAVA_LONG, 8), "the FI_CSWAP lock is free at the end");
            assertEquals((long) PEERS * ROUNDS, words.get(ValueLayout.JAVA_LONG, 16),
                    "the word incremented only under the lock");
        } finally {
            stop.set(true);
            for (PeerProcess p : peers) {
                p.close();
            }
        }
    }
}
