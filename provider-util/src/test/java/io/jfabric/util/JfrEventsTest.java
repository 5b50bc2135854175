package io.jfabric.util;

import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.util.jfr.ConnectionEvent;
import io.jfabric.util.jfr.PeerFailureEvent;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
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

    private static RecordedEvent only(List<RecordedEvent> events, String name) {
        List<RecordedEvent> found = events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
        assertEquals(1, found.size(), name + " events: " + found);
        return found.getFirst();
    }
}
