package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.util.jfr.EndpointStatistics;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recorded shm run with a peer process killed under a large send: the liveness scan that fails the send
 * records one jfabric.PeerFailure naming the peer's fi_shm address, and the endpoint is sampled meanwhile.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmJfrTest {
    @TempDir
    Path dir;

    @Test
    void aKilledPeerIsRecordedWithTheOperationsItFailed() throws Exception {
        Path file = dir.resolve("shm.jfr");
        String self;
        String peer;
        try (Recording r = new Recording()) {
            r.enable("jfabric.PeerFailure");
            r.enable("jfabric.EndpointStatistics");
            r.start();
            try (ShmNode node = new ShmNode(); Arena arena = Arena.ofShared()) {
                self = new String(node.name(), StandardCharsets.US_ASCII).trim();
                Process child = TwoProcessTest.startPeer("idle", self);
                try {
                    peer = TwoProcessTest.readAddress(child).trim();
                    long childAddr = node.av.insert(peer.getBytes(StandardCharsets.US_ASCII));
                    // a large send waits for the receiver, which never posts a receive
                    assertEquals(0, node.ep.tsend(arena.allocate(200_000), null, childAddr, 1, "in flight"));
                    EndpointStatistics.sampleNow(); // a sample with the send in flight
                    child.destroyForcibly(); // SIGKILL
                    assertTrue(child.waitFor(10, TimeUnit.SECONDS));
                    CqErrEntry err = new CqErrEntry();
                    assertEquals(-Errno.EAVAIL, node.next(new CqEntry(), err, 5_000), "the send fails");
                    assertEquals(Errno.ECONNRESET, err.err);
                    assertEquals("in flight", err.context);
                } finally {
                    child.destroyForcibly();
                }
            }
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> failures = named(events, "jfabric.PeerFailure");
        assertEquals(1, failures.size(), failures::toString);
        RecordedEvent f = failures.getFirst();
        assertEquals("shm", f.getString("provider"));
        assertEquals(peer, f.getString("peer"));
        assertEquals(Errno.ECONNRESET, f.getInt("err"));
        assertEquals(1, f.getInt("failedOperations"));

        List<RecordedEvent> samples = named(events, "jfabric.EndpointStatistics").stream()
                .filter(e -> self.equals(e.getString("endpoint"))).toList();
        assertFalse(samples.isEmpty(), "no sample of the endpoint");
        assertTrue(samples.stream().anyMatch(e -> e.getInt("txInFlight") == 1), "the pending send: " + samples);
        assertEquals(4096, samples.getFirst().getInt("cqCapacity"));
        assertEquals(-1, samples.getFirst().getInt("connections"), "shm has no connections");
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }
}
