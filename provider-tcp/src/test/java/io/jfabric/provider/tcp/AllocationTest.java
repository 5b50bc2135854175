package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.Progress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;

/**
 * Once warm, the data path allocates nothing per message: a ping-pong of sends, injects and receives
 * (small and large, so both the inline and the zero-copy paths run), with completions read through the
 * CQ, is measured with the JVM's per-thread allocation counter.
 */
@Timeout(120)
class AllocationTest {
    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static void take(Loopback.Side s, CqEntry[] a) {
        int n;
        while ((n = s.cq.read(a, 1)) == -Errno.EAGAIN) {
            s.partner.cq.read(a, 0);
        }
        assertEquals(1, n);
    }

    private static void roundTrips(Loopback p, MemorySegment small, MemorySegment large, MemorySegment rxA,
                                   MemorySegment rxB, CqEntry[] a, int count, boolean tagged) {
        for (int i = 0; i < count; i++) {
            MemorySegment tx = (i & 1) == 0 ? small : large;
            long tag = i & 0xFF;
            assertEquals(0, tagged ? p.server.ep.trecv(rxA, null, 0, tag, 0, "a") : p.server.ep.recv(rxA, null, 0, "a"));
            if (tx == small) {
                assertEquals(0, tagged ? p.client.ep.tinject(tx, 0, tag) : p.client.ep.inject(tx, 0));
            } else {
                assertEquals(0, tagged ? p.client.ep.tsend(tx, null, 0, tag, "s") : p.client.ep.send(tx, null, 0, "s"));
            }
            take(p.server, a);
            if (tx == large) {
                take(p.client, a);
            }
            assertEquals(0, tagged ? p.client.ep.trecv(rxB, null, 0, 0, -1L, "b") : p.client.ep.recv(rxB, null, 0, "b"));
            assertEquals(0, tagged ? p.server.ep.tsend(tx, null, 0, tag, "t") : p.server.ep.send(tx, null, 0, "t"));
            take(p.client, a);
            take(p.server, a);
        }
    }

    /**
     * With a recording of every jfabric event on (endpoint statistics sampled every 10 ms, transfers at any
     * duration), the success path still allocates nothing: the events are asked for on error and control
     * paths only, and the samples are taken on JFR's thread.
     */
    private static Recording recordEverything() {
        Recording r = new Recording();
        for (String name : new String[] {"jfabric.Connection", "jfabric.PeerFailure", "jfabric.OperationError",
                "jfabric.CqOverrun", "jfabric.ProtocolTransfer"}) {
            r.enable(name).withThreshold(Duration.ZERO);
        }
        r.enable("jfabric.EndpointStatistics").withPeriod(Duration.ofMillis(10));
        r.start();
        return r;
    }

    @ParameterizedTest(name = "tagged={0}, recording={1}")
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void steadyStatePingPongAllocatesNothingPerMessage(boolean tagged, boolean recording) {
        Assumptions.assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean,
                "this JVM cannot count per-thread allocation");
        try (Recording r = recording ? recordEverything() : null;
             Loopback p = new Loopback(false, Progress.MANUAL, null, null,
                tagged ? io.jfabric.CqFormat.TAGGED : io.jfabric.CqFormat.DATA); Arena arena = Arena.ofConfined()) {
            MemorySegment small = arena.allocate(64);
            MemorySegment large = arena.allocate(64 * 1024);
            MemorySegment rxA = arena.allocate(64 * 1024);
            MemorySegment rxB = arena.allocate(64 * 1024);
            CqEntry[] a = CqEntry.array(1);
            roundTrips(p, small, large, rxA, rxB, a, 20_000, tagged); // warm up, let the JIT settle
            int n = 10_000;
            long before = allocated();
            roundTrips(p, small, large, rxA, rxB, a, n, tagged);
            long perMessage = (allocated() - before) / (4L * n);
            assertTrue(perMessage < 8, "data path allocates about " + perMessage + " bytes per message");
        }
    }
}
