package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.Progress;
import io.jfabric.util.Sockaddr;
import io.jfabric.util.jfr.EndpointStatistics;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recorded tcp run: a connection established, a message sent, the peer shutting down under a posted
 * receive, and a connect nobody answers. The recording must hold the connection's life (established, closed,
 * refused) with fi_sockaddr_in addresses, the peer failure with the receive it failed, and endpoint samples.
 */
@Timeout(60)
class TcpJfrTest {
    @TempDir
    Path dir;

    @Test
    void connectionsPeerFailureAndStatisticsAreRecorded() throws Exception {
        Path file = dir.resolve("tcp.jfr");
        String server;
        String client;
        String refusedPort;
        try (Recording r = new Recording(); Arena arena = Arena.ofConfined()) {
            r.enable("jfabric.Connection");
            r.enable("jfabric.PeerFailure");
            r.enable("jfabric.OperationError");
            r.enable("jfabric.EndpointStatistics");
            r.start();
            try (Loopback p = new Loopback(false, Progress.MANUAL, null, null)) {
                server = Sockaddr.straddr(p.server.ep.getName());
                client = Sockaddr.straddr(p.client.ep.getName());
                MemorySegment buf = arena.allocate(64);
                assertEquals(0, p.server.ep.recv(buf, null, 0, "r"));
                assertEquals(0, p.client.ep.send(buf, null, 0, "s"));
                p.client.waitCq(5000);
                p.server.waitCq(5000);
                EndpointStatistics.sampleNow(); // a sample while connected, whatever the periods do
                assertEquals(0, p.client.ep.recv(buf, null, 0, "orphan"));
                p.server.ep.shutdown(0);
                CqErrEntry err = p.client.waitCqError(5000);
                assertEquals(Errno.ECONNRESET, err.err);
            }
            try (ServerSocket s = new ServerSocket(0)) {
                refusedPort = String.valueOf(s.getLocalPort()); // closed below: nobody listens there
            }
            FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
            Loopback.Side lonely = Loopback.openEnabled(info);
            try {
                lonely.ep.connect(Sockaddr.of(java.net.InetAddress.getLoopbackAddress(), Integer.parseInt(refusedPort)), null);
                assertEquals(Errno.ECONNREFUSED, lonely.waitEqError(5000).err);
            } finally {
                Loopback.closeSide(lonely);
                lonely.fabric.close();
            }
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);

        List<RecordedEvent> conns = named(events, "jfabric.Connection");
        RecordedEvent up = first(conns, "established", client);
        assertEquals("tcp", up.getString("provider"));
        assertEquals(server, up.getString("peer"), "the client's connection names the server");
        assertTrue(up.getString("local").startsWith("fi_sockaddr_in://127.0.0.1:"), up.getString("local"));
        first(conns, "established", server);
        assertEquals("fi_shutdown", first(conns, "closed", server).getString("reason"));
        assertFalse(first(conns, "closed", client).getString("reason").isEmpty());
        RecordedEvent refused = first(conns, "refused", null);
        assertTrue(refused.getString("peer").endsWith(":" + refusedPort), refused.getString("peer"));
        assertTrue(refused.getString("reason").contains("ECONNREFUSED"), refused.getString("reason"));

        List<RecordedEvent> failures = named(events, "jfabric.PeerFailure");
        assertEquals(1, failures.size(), failures.toString());
        RecordedEvent f = failures.getFirst();
        assertEquals("tcp", f.getString("provider"));
        assertEquals(server, f.getString("peer"));
        assertEquals(Errno.ECONNRESET, f.getInt("err"));
        assertEquals(1, f.getInt("failedOperations"), "the posted receive");

        List<RecordedEvent> stats = named(events, "jfabric.EndpointStatistics").stream()
                .filter(e -> client.equals(e.getString("endpoint"))).toList();
        assertFalse(stats.isEmpty(), () -> "no statistics sample of the client endpoint " + client + " in "
                + named(events, "jfabric.EndpointStatistics"));
        RecordedEvent s = stats.stream().filter(e -> e.getInt("connections") == 1).findFirst()
                .orElseThrow(() -> new AssertionError("no sample while connected: " + stats));
        assertEquals("tcp", s.getString("provider"));
        assertEquals(128, s.getInt("cqCapacity"));
        assertEquals(-1L, s.getLong("sends"), "no counter bound");
        assertTrue(s.getInt("txInFlight") >= 0);
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    /** The first connection event in {@code state} whose local address is {@code local} (any when null). */
    private static RecordedEvent first(List<RecordedEvent> conns, String state, String local) {
        return conns.stream()
                .filter(e -> state.equals(e.getString("state")) && (local == null || local.equals(e.getString("local"))))
                .findFirst().orElseThrow(() -> new AssertionError("no " + state + " event from " + local + " in " + conns));
    }
}
