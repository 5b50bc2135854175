package io.jfabric.util;

import io.jfabric.BindFlags;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.util.jfr.ConnectionEvent;
import io.jfabric.util.jfr.EndpointStatistics;
import io.jfabric.util.jfr.PeerFailureEvent;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The jfabric.* JFR events are written when recorded, carry what an operator needs, and cost no allocation on the success path. */
@Timeout(60)
class JfrEventsTest {
    @TempDir
    Path dir;

    @Test
    void errorsOverrunsConnectionsAndPeerFailuresAreRecorded() throws Exception {
        Path file = dir.resolve("run.jfr");
        try (Recording r = new Recording()) {
            r.enable("jfabric.OperationError");
            r.enable("jfabric.CqOverrun");
            r.enable("jfabric.Connection");
            r.enable("jfabric.PeerFailure");
            r.start();
            UtilCompletionQueue cq = new UtilCompletionQueue(CqAttr.of(CqFormat.TAGGED, 2), ProgressHook.NONE, false, false);
            assertEquals(0, cq.writeError("ctx-1", OpFlags.RECV | OpFlags.MSG, 10, 0, 0, 0, 90, Errno.ETRUNC, 0, null));
            assertEquals(0, cq.write("ok", OpFlags.SEND, 0, 0, 0, 0));
            assertEquals(-Errno.EOVERRUN, cq.write("lost", OpFlags.SEND, 0, 0, 0, 0));
            ConnectionEvent.emit("tcp", ConnectionEvent.REFUSED, "127.0.0.1:1", "127.0.0.1:2", "rejected by peer");
            PeerFailureEvent.emit("shm", "pid 42", Errno.ECONNRESET, 3, "process gone");
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        RecordedEvent err = only(events, "jfabric.OperationError");
        assertEquals(Errno.ETRUNC, err.getInt("err"));
        assertEquals(Errno.ETRUNC, err.getInt("provErrno"), "prov_errno defaults to the errno");
        assertEquals(90, err.getLong("olen"));
        assertEquals("ctx-1", err.getString("context"));
        assertTrue(err.getString("flags").contains("FI_RECV"), err.getString("flags"));
        assertEquals(2, only(events, "jfabric.CqOverrun").getInt("capacity"));
        RecordedEvent conn = only(events, "jfabric.Connection");
        assertEquals("refused", conn.getString("state"));
        assertEquals("rejected by peer", conn.getString("reason"));
        RecordedEvent peer = only(events, "jfabric.PeerFailure");
        assertEquals(3, peer.getInt("failedOperations"));
        assertEquals(Errno.ECONNRESET, peer.getInt("err"));
    }

    @Test
    void errorEntriesNameTheirErrorInProvErrno() {
        UtilCompletionQueue cq = new UtilCompletionQueue(CqAttr.of(CqFormat.TAGGED, 8), ProgressHook.NONE, false, false);
        cq.writeError("c", OpFlags.RECV, Errno.ECANCELED);
        assertEquals(-Errno.EAVAIL, cq.read(new CqEntry()));
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readError(e, 0));
        assertEquals(Errno.ECANCELED, e.provErrno);
        assertNotEquals("Success", cq.strerror(e.provErrno, e.errData));
    }

    @Test
    void successCompletionsAllocateNothingWhileRecording() {
        try (Recording r = new Recording()) {
            r.enable("jfabric.OperationError");
            r.enable("jfabric.CqOverrun");
            r.start();
            UtilCompletionQueue cq = new UtilCompletionQueue(CqAttr.of(CqFormat.TAGGED, 64), ProgressHook.NONE, false, false);
            CqEntry[] out = CqEntry.array(16);
            Runnable cycle = () -> {
                for (int i = 0; i < 10_000; i++) {
                    cq.write(out, OpFlags.SEND, 0, 0, 0, 0);
                    cq.read(out, 16);
                }
            };
            for (int i = 0; i < 10; i++) {
                cycle.run();
            }
            long bytes = Allocations.bytesDuring(cycle);
            assertTrue(bytes < 1024, "allocated " + bytes + " bytes in 10k write/read cycles while recording");
        }
    }

    @Test
    void registeredEndpointsAreSampledWithTheirBindingsUntilTheyUnregister() throws Exception {
        EndpointBindings bindings = new EndpointBindings("test endpoint");
        UtilCounter sends = new UtilCounter(new CounterAttr(), ProgressHook.NONE);
        UtilCompletionQueue cq = new UtilCompletionQueue(CqAttr.of(CqFormat.TAGGED, 8), ProgressHook.NONE, false, false);
        bindings.bindCounter(sends, BindFlags.TRANSMIT);
        bindings.bindCq(cq, BindFlags.TRANSMIT);
        sends.increment();
        sends.increment();
        sends.incrementError();
        assertEquals(0, cq.write("waiting", OpFlags.SEND, 0, 0, 0, 0));
        EndpointStatistics.Source source = e -> {
            e.provider = "test";
            e.endpoint = "ep-1";
            bindings.sample(e);
            e.connections = 3;
        };
        Path file = dir.resolve("stats.jfr");
        List<RecordedEvent> samples = List.of();
        int afterUnregister;
        try (Recording r = new Recording()) {
            r.enable("jfabric.EndpointStatistics").withPeriod(Duration.ofMillis(10));
            r.start();
            EndpointStatistics.register(source);
            long end = System.nanoTime() + 10_000_000_000L;
            while (samples.isEmpty() && System.nanoTime() < end) { // the period's hook, however loaded the machine
                Thread.sleep(20);
                r.dump(file);
                samples = samplesOf(file, "ep-1");
            }
            EndpointStatistics.unregister(source);
            r.dump(file);
            afterUnregister = samplesOf(file, "ep-1").size();
            EndpointStatistics.sampleNow();
            r.stop();
            r.dump(file);
        }
        assertFalse(samples.isEmpty(), "no sample within 10 s at a 10 ms period");
        assertEquals(afterUnregister, samplesOf(file, "ep-1").size(), "sampled after it unregistered");
        RecordedEvent s = samples.getFirst();
        assertEquals("test", s.getString("provider"));
        assertEquals(2, s.getLong("sends"));
        assertEquals(-1, s.getLong("receives"), "no receive counter bound");
        assertEquals(1, s.getLong("counterErrors"));
        assertEquals(1, s.getInt("txCqEntries"));
        assertEquals(-1, s.getInt("rxCqEntries"), "no receive CQ bound");
        assertEquals(8, s.getInt("cqCapacity"));
        assertFalse(s.getBoolean("cqOverrun"));
        assertEquals(3, s.getInt("connections"));
        assertEquals(1, cq.size(), "sampling reads the CQ without consuming it");
    }

    private static List<RecordedEvent> samplesOf(Path file, String endpoint) throws java.io.IOException {
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("jfabric.EndpointStatistics")
                        && endpoint.equals(e.getString("endpoint"))).toList();
    }

    private static RecordedEvent only(List<RecordedEvent> events, String name) {
        List<RecordedEvent> found = events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
        assertEquals(1, found.size(), name + " events: " + found);
        return found.getFirst();
    }
}
