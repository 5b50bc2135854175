package io.jfabric.util.jfr;

import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCompletionQueue;
import jdk.jfr.FlightRecorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A process that records nothing does not build JFR's metadata repository for jfabric's events: the first
 * registration of an event class costs a cold JVM 80-100 ms, which the first connection of every process and rxm's
 * first rendezvous used to pay. Checked in a fresh JVM (this one has recorded already), by whether the repository's
 * class is ever loaded while every gate, emit helper and error path runs.
 */
@Timeout(60)
class UnrecordedEventsTest {
    private static final String REPOSITORY = "jdk.jfr.internal.MetadataRepository ";

    @Test
    void eventHelpersWithoutARecordingLeaveJfrAlone() throws Exception {
        String out = runChild("touch");
        assertTrue(out.contains("touched every event helper"), out);
        assertFalse(out.contains(REPOSITORY), "JFR's metadata repository was built with no recording:\n" + out);
    }

    @Test
    void theProbeSeesARegistrationWhenThereIsOne() throws Exception {
        String out = runChild("register");
        assertTrue(out.contains("registered"), out);
        assertTrue(out.contains(REPOSITORY), "the class-load log no longer names the repository; the probe is blind:\n"
                + out);
    }

    private static String runChild(String mode) throws IOException, InterruptedException {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load=info", "-cp", System.getProperty("java.class.path"), Child.class.getName(), mode);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] bytes = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", cmd));
        String out = new String(bytes, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    /** The child process: runs every helper a provider calls, or (register) the registration the gates avoid. */
    public static final class Child {
        public static void main(String[] args) {
            if (args[0].equals("register")) {
                FlightRecorder.register(PeerFailureEvent.class);
                System.out.println("registered");
                return;
            }
            boolean any = ConnectionEvent.isRecorded() || PeerFailureEvent.isRecorded()
                    || ProtocolTransferEvent.GATE.isRecorded();
            ConnectionEvent.emit("tcp", ConnectionEvent.ESTABLISHED, "127.0.0.1:1", "127.0.0.1:2", "");
            ConnectionEvent.emitSockaddrs("tcp", ConnectionEvent.CLOSED, null, null, "closed");
            PeerFailureEvent.emit("shm", "pid 42", Errno.ECONNRESET, 1, "process gone");
            UtilCompletionQueue cq = new UtilCompletionQueue(CqAttr.of(CqFormat.TAGGED, 1), ProgressHook.NONE, false,
                    false);
            cq.writeError("ctx", OpFlags.RECV | OpFlags.MSG, 10, 0, 0, 0, 90, Errno.ETRUNC, 0, null);
            cq.write("lost", OpFlags.SEND, 0, 0, 0, 0); // past capacity: the overrun path
            EndpointStatistics.register(e -> { });
            System.out.println(any ? "recorded?" : "touched every event helper");
        }
    }
}
