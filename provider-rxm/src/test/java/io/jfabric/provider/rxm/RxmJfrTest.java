package io.jfabric.provider.rxm;

import io.jfabric.Errno;
import io.jfabric.util.Sockaddr;
import io.jfabric.util.jfr.EndpointStatistics;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A recorded tcp;ofi_rxm run: on-demand connects, an eager, a mid-size and a large message, a peer that dies
 * under a pending rendezvous, and a connect to an endpoint that is gone. The recording must hold rxm's
 * connections, one transfer event per SAR or rendezvous message (none for eager), the peer failure with the
 * operation it failed, and the endpoints' samples.
 */
@Timeout(60)
class RxmJfrTest {
    @TempDir
    Path dir;

    @Test
    void connectionsTransfersPeerFailureAndStatisticsAreRecorded() throws Exception {
        Path file = dir.resolve("rxm.jfr");
        String aName, bName, goneName;
        try (Recording r = new Recording(); Arena arena = Arena.ofShared()) {
            for (String event : List.of("jfabric.Connection", "jfabric.PeerFailure", "jfabric.ProtocolTransfer",
                    "jfabric.EndpointStatistics")) {
                r.enable(event).withThreshold(Duration.ZERO); // every transfer, however quick
            }
            r.start();
            try (RxmNode a = new RxmNode(); RxmNode b = new RxmNode()) {
                aName = Sockaddr.straddr(a.name());
                bName = Sockaddr.straddr(b.name());
                long ab = a.insert(b.name());
                long ba = b.insert(a.name());
                for (long size : new long[] {8, 64 << 10, 1 << 20}) {
                    MemorySegment src = RxmNode.pattern(arena, size, 3);
                    MemorySegment dst = arena.allocate(size);
                    Object rx = "rx-" + size;
                    Object tx = "tx-" + size;
                    assertEquals(0, b.ep.recv(dst, null, ba, rx));
                    assertEquals(0, RxmNode.retry(() -> a.ep.send(src, null, ab, tx), 10_000, a, b));
                    assertTrue(RxmNode.await(() -> b.completionFor(rx) != null && a.completionFor(tx) != null,
                            10_000, a, b), () -> a + "\n" + b);
                }
                EndpointStatistics.sampleNow(); // a sample while connected, whatever the periods do

                // a rendezvous b never reads, then b goes: the send fails with the connection
                Object pending = "pending-rndv";
                assertEquals(0, RxmNode.retry(() -> a.ep.tsend(RxmNode.pattern(arena, 1 << 20, 4), null, ab, 9,
                        pending), 10_000, a, b));
                RxmNode.await(() -> false, 200, a, b);
                b.close();
                assertTrue(RxmNode.await(() -> a.errorFor(pending) != null, 10_000, a), a::toString);

                RxmNode gone = new RxmNode();
                byte[] goneAddr = gone.name();
                goneName = Sockaddr.straddr(goneAddr);
                gone.close();
                long dead = a.insert(goneAddr);
                int rc = RxmNode.retry(() -> a.ep.send(RxmNode.pattern(arena, 8, 1), null, dead, "nobody"), 10_000, a);
                assertEquals(-Errno.ECONNREFUSED, rc);
            }
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);

        List<RecordedEvent> rxmConns = named(events, "jfabric.Connection").stream()
                .filter(e -> "ofi_rxm".equals(e.getString("provider"))).toList();
        assertTrue(rxmConns.stream().anyMatch(e -> is(e, "established", aName, bName)), rxmConns::toString);
        assertTrue(rxmConns.stream().anyMatch(e -> is(e, "established", bName, aName)), rxmConns::toString);
        assertTrue(rxmConns.stream().anyMatch(e -> is(e, "closed", aName, bName)), rxmConns::toString);
        assertTrue(rxmConns.stream().anyMatch(e -> is(e, "refused", aName, goneName)
                && e.getString("reason").contains("ECONNREFUSED")), rxmConns::toString);
        assertTrue(named(events, "jfabric.Connection").stream().anyMatch(e -> "tcp".equals(e.getString("provider"))),
                "the core tcp connections are recorded too");

        List<RecordedEvent> transfers = named(events, "jfabric.ProtocolTransfer");
        assertTrue(transfers.stream().noneMatch(e -> e.getLong("size") == 8), "eager sends have no transfer event");
        RecordedEvent mid = transfers.stream().filter(e -> e.getLong("size") == 64 << 10).findFirst().orElseThrow();
        assertTrue(Set.of("SAR", "rendezvous (read)", "rendezvous (write)").contains(mid.getString("protocol")),
                mid.getString("protocol"));
        RecordedEvent large = transfers.stream().filter(e -> e.getLong("size") == 1 << 20 && e.getInt("err") == 0)
                .findFirst().orElseThrow(() -> new AssertionError(transfers.toString()));
        assertTrue(large.getString("protocol").startsWith("rendezvous"), large.getString("protocol"));
        assertEquals(bName, large.getString("peer"));
        assertEquals("ofi_rxm", large.getString("provider"));
        assertFalse(large.getDuration().isNegative());
        assertTrue(transfers.stream().anyMatch(e -> e.getLong("size") == 1 << 20 && e.getInt("err") != 0),
                "the rendezvous that failed with its peer ends its transfer event with the errno");

        List<RecordedEvent> failures = named(events, "jfabric.PeerFailure").stream()
                .filter(e -> "ofi_rxm".equals(e.getString("provider"))).toList();
        assertEquals(1, failures.size(), failures::toString);
        assertEquals(bName, failures.getFirst().getString("peer"));
        assertTrue(failures.getFirst().getInt("failedOperations") >= 1, failures::toString);
        assertNotEquals(0, failures.getFirst().getInt("err"));

        RecordedEvent sample = named(events, "jfabric.EndpointStatistics").stream()
                .filter(e -> aName.equals(e.getString("endpoint")) && e.getInt("connections") == 1)
                .findFirst().orElseThrow(() -> new AssertionError("no sample of a while connected to b"));
        assertEquals("ofi_rxm", sample.getString("provider"));
        assertTrue(sample.getInt("txCqEntries") >= 0);
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    private static boolean is(RecordedEvent e, String state, String local, String peer) {
        return state.equals(e.getString("state")) && local.equals(e.getString("local")) && peer.equals(e.getString("peer"));
    }
}
