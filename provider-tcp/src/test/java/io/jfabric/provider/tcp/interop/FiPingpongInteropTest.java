package io.jfabric.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Java tcp provider against the real C {@code fi_pingpong -p tcp -e msg} of libfabric 1.17 (Debian
 * libfabric-bin), in both roles, with data checks ({@code -c}). The C side runs with FI_TCP_IFACE=lo so all
 * traffic stays on loopback. Skipped (with the reason) where fi_pingpong is not installed.
 */
@Timeout(180)
class FiPingpongInteropTest {
    private static final int ITERATIONS = 20;
    private static String fiPingpong;

    @BeforeAll
    static void findBinary() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            File f = new File(dir, "fi_pingpong");
            if (f.canExecute()) {
                fiPingpong = f.getPath();
                return;
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Process startC(List<String> args, Path log) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(fiPingpong);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("FI_TCP_IFACE", "lo");
        pb.environment().put("FI_PROVIDER", "tcp");
        return pb.start();
    }

    private static String run(FiPingpongPeer peer) throws Exception {
        int rc = peer.run();
        assertEquals(0, rc);
        return String.join("\n", peer.results());
    }

    @ParameterizedTest(name = "java client, C server, {0} B")
    @ValueSource(ints = {64, 4096, 65536, 1 << 20})
    void javaClientAgainstCServer(int size) throws Exception {
        Assumptions.assumeTrue(fiPingpong != null, "fi_pingpong (libfabric-bin) is not installed");
        int port = freePort();
        Path log = Files.createTempFile("fi_pingpong-server", ".log");
        Process c = startC(List.of("-p", "tcp", "-e", "msg", "-B", String.valueOf(port), "-S", String.valueOf(size),
                "-I", String.valueOf(ITERATIONS), "-c"), log);
        try {
            FiPingpongPeer peer = new FiPingpongPeer();
            peer.parse(new String[] {"-P", String.valueOf(port), "-S", String.valueOf(size), "-I",
                    String.valueOf(ITERATIONS), "-c", "127.0.0.1"});
            connectWithRetry(peer);
            assertTrue(c.waitFor(60, TimeUnit.SECONDS), "fi_pingpong server did not finish");
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertEquals(0, c.exitValue(), "fi_pingpong server failed:\n" + out);
            assertTrue(out.contains("=" + ITERATIONS), "fi_pingpong did not count every message:\n" + out);
        } finally {
            c.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    /** The C server needs a moment before its control port listens. */
    private static void connectWithRetry(FiPingpongPeer peer) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        while (true) {
            try {
                run(peer);
                return;
            } catch (java.net.ConnectException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    @ParameterizedTest(name = "C client, java server, {0} B")
    @ValueSource(ints = {64, 4096, 65536, 1 << 20})
    void cClientAgainstJavaServer(int size) throws Exception {
        Assumptions.assumeTrue(fiPingpong != null, "fi_pingpong (libfabric-bin) is not installed");
        int port = freePort();
        Path log = Files.createTempFile("fi_pingpong-client", ".log");
        FiPingpongPeer peer = new FiPingpongPeer();
        peer.parse(new String[] {"-B", String.valueOf(port), "-S", String.valueOf(size), "-I",
                String.valueOf(ITERATIONS), "-c"});
        Process[] c = new Process[1];
        Thread cThread = Thread.ofPlatform().start(() -> {
            try {
                for (int attempt = 0; attempt < 50; attempt++) {
                    c[0] = startC(List.of("-p", "tcp", "-e", "msg", "-P", String.valueOf(port), "-S",
                            String.valueOf(size), "-I", String.valueOf(ITERATIONS), "-c", "127.0.0.1"), log);
                    c[0].waitFor(60, TimeUnit.SECONDS);
                    String out = Files.readString(log, StandardCharsets.UTF_8);
                    if (c[0].exitValue() == 0 || !out.contains("failed to connect")) {
                        return;
                    }
                    Thread.sleep(200);
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            String results = run(peer);
            cThread.join(60_000);
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertEquals(0, c[0].exitValue(), "fi_pingpong client failed:\n" + out);
            assertTrue(out.contains("=" + ITERATIONS), "fi_pingpong did not count every message:\n" + out);
            assertTrue(results.startsWith(String.valueOf(size)), results);
        } finally {
            if (c[0] != null) {
                c[0].destroyForcibly();
            }
            Files.deleteIfExists(log);
        }
    }
}
