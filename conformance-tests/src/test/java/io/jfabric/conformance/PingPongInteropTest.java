package io.jfabric.conformance;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Interop with a peer nobody here wrote: {@code jfabric pingpong} against libfabric's own C
 * {@code fi_pingpong} (Debian package libfabric-bin), in both roles, with data verification (-c). Each run
 * uses fi_pingpong's default size list (64 B, 256 B, 1 KiB, 4 KiB, 64 KiB, 1 MiB), which holds the four sizes
 * the interop contract names, so one pair of processes covers them. The C-to-C run is the reference, and
 * jfabric-to-jfabric runs too, with a {@code --warmup} before each size; the usec/xfer of every pair is printed side by side at the end (and kept in
 * target/interop-results.txt).
 */
@Timeout(120)
class PingPongInteropTest {
    static final Path FI_PINGPONG = Path.of("/usr/bin/fi_pingpong");
    static final long PROCESS_TIMEOUT_MS = 60_000;
    static final int ITERATIONS = Integer.getInteger("jfabric.interop.iterations", 50);
    static final int WARMUP = 30;
    /**
     * The timed round trips of a jfabric-to-jfabric pair: more than two of pingpong's calls of 64 round trips and
     * not a multiple of them, so that #sent and #ack show the batching loses and adds nothing.
     */
    static final int JAVA_PAIR_ITERATIONS = 150;
    static final int[] DEFAULT_SIZES = {64, 256, 1024, 4096, 65536, 1 << 20};
    static final Map<String, String> RESULTS = new ConcurrentSkipListMap<>();

    /** A provider as each tool names it; the C name is null when only jfabric can speak it. */
    record Spec(String javaProvider, String cProvider, String epType, String caseId) {
        @Override
        public String toString() {
            return javaProvider + " -e " + epType;
        }
    }

    enum Pair {
        C_SERVER_C_CLIENT, JAVA_SERVER_C_CLIENT, C_SERVER_JAVA_CLIENT, JAVA_SERVER_JAVA_CLIENT;

        boolean javaServer() {
            return this == JAVA_SERVER_C_CLIENT || this == JAVA_SERVER_JAVA_CLIENT;
        }

        boolean javaClient() {
            return this == C_SERVER_JAVA_CLIENT || this == JAVA_SERVER_JAVA_CLIENT;
        }

        boolean involvesC() {
            return this != JAVA_SERVER_JAVA_CLIENT;
        }

        boolean involvesJava() {
            return this != C_SERVER_C_CLIENT;
        }
    }

    static final List<Spec> SPECS = List.of(
            new Spec("tcp", "tcp", "msg", "tcp/FI_EP_MSG"),
            new Spec("tcp;ofi_rxm", "tcp;ofi_rxm", "rdm", "tcp;ofi_rxm/FI_EP_RDM"),
            new Spec("libfabric:tcp", "tcp", "msg", "libfabric:tcp/FI_EP_MSG"),
            // jfabric's shm is Java-to-Java only (DESIGN.md): libfabric's shm uses its own region layout
            new Spec("shm", null, "rdm", "shm/FI_EP_RDM"));

    /**
     * Every pair the two tools can form for each spec: none with fi_pingpong where it has no such provider, and
     * no fi_pingpong-to-fi_pingpong run on a libfabric: row, which would repeat the C pair of the row of the same
     * native provider (only the Java side differs between the two rows).
     */
    static Stream<Arguments> runs() {
        List<Arguments> out = new ArrayList<>();
        for (Spec s : SPECS) {
            for (Pair p : Pair.values()) {
                boolean cMissing = p.involvesC() && s.cProvider() == null;
                boolean cPairRepeated = p == Pair.C_SERVER_C_CLIENT && s.javaProvider().startsWith("libfabric:");
                if (!cMissing && !cPairRepeated) {
                    out.add(Arguments.of(s, p));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("runs")
    void pingpongCompletesWithVerifiedData(Spec spec, Pair pair) throws Exception {
        if (pair.involvesC()) {
            Assumptions.assumeTrue(Files.isExecutable(FI_PINGPONG),
                    "not run: " + FI_PINGPONG + " is not installed (package libfabric-bin; .ci/run installs it)");
        }
        if (pair.involvesJava()) {
            Assumptions.assumeTrue(FabricCases.cases().stream().anyMatch(c -> c.id().equals(spec.caseId())),
                    () -> "not run: jfabric offers no " + spec.caseId() + " here; cases: " + FabricCases.cases());
        }
        int port = freePort();
        int iterations = pair == Pair.JAVA_SERVER_JAVA_CLIENT ? JAVA_PAIR_ITERATIONS : ITERATIONS;
        List<String> common = new ArrayList<>(List.of("-e", spec.epType(), "-I", Integer.toString(iterations), "-c"));
        if (pair == Pair.JAVA_SERVER_JAVA_CLIENT) {
            // untimed round trips first: #sent and #ack below must still count only the timed ones
            common.addAll(List.of("--warmup", Integer.toString(WARMUP)));
        }
        Path dir = Files.createDirectories(Path.of("target", "interop-logs"));
        String tag = (spec.javaProvider() + "-" + pair).replaceAll("[^A-Za-z0-9_-]+", "_");
        Process server = start(pair.javaServer(), spec, common, List.of("-B", Integer.toString(port)),
                dir.resolve(tag + "-server.log"));
        Process client = null;
        try {
            awaitListening(port, server);
            client = start(pair.javaClient(), spec, common, List.of("-P", Integer.toString(port), "127.0.0.1"),
                    dir.resolve(tag + "-client.log"));
            int clientRc = awaitExit(client, "client");
            int serverRc = awaitExit(server, "server");
            String serverOut = Files.readString(dir.resolve(tag + "-server.log"));
            String clientOut = Files.readString(dir.resolve(tag + "-client.log"));
            assertEquals(0, clientRc, "client exit status; output:\n" + clientOut + "\nserver output:\n" + serverOut);
            assertEquals(0, serverRc, "server exit status; output:\n" + serverOut + "\nclient output:\n" + clientOut);
            for (int size : DEFAULT_SIZES) {
                String[] s = row(serverOut, size, "server");
                String[] c = row(clientOut, size, "client");
                for (String[] r : new String[][] {s, c}) {
                    assertEquals(Integer.toString(iterations), r[1], size + " B: #sent");
                    assertEquals("=" + iterations, r[2], size + " B: #ack: every message acknowledged");
                }
                RESULTS.put(String.format(Locale.ROOT, "%-14s %8d B  %-24s", spec.javaProvider(), size, pair),
                        "client " + c[6] + " usec/xfer, " + c[5] + " MB/s | server " + s[6] + " usec/xfer");
            }
        } finally {
            for (Process p : new Process[] {client, server}) {
                if (p != null) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
    }

    /**
     * The bridge against jfabric's own rxm across two processes: `jfabric pingpong -m tagged` on
     * libfabric:tcp;ofi_rxm (native rxm through FFM) with the pure-Java tcp;ofi_rxm on the other side, both
     * roles, data verified (-c). Both speak rxm's wire protocol over real TCP sockets on loopback.
     */
    @ParameterizedTest(name = "server {0}, client {1}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
            "tcp;ofi_rxm|libfabric:tcp;ofi_rxm", "libfabric:tcp;ofi_rxm|tcp;ofi_rxm"})
    void bridgeAndJavaRxmExchangeTaggedMessages(String serverProvider, String clientProvider) throws Exception {
        for (String id : new String[] {"tcp;ofi_rxm/FI_EP_RDM", "libfabric:tcp;ofi_rxm/FI_EP_RDM"}) {
            Assumptions.assumeTrue(FabricCases.cases().stream().anyMatch(c -> c.id().equals(id)),
                    () -> "not run: jfabric offers no " + id + " here; cases: " + FabricCases.cases());
        }
        Spec server = new Spec(serverProvider, null, "rdm", null);
        Spec client = new Spec(clientProvider, null, "rdm", null);
        int port = freePort();
        List<String> common = List.of("-e", "rdm", "-m", "tagged", "-I", Integer.toString(ITERATIONS), "-c");
        Path dir = Files.createDirectories(Path.of("target", "interop-logs"));
        String tag = ("tagged-" + serverProvider + "-to-" + clientProvider).replaceAll("[^A-Za-z0-9_-]+", "_");
        Process sp = start(true, server, common, List.of("-B", Integer.toString(port)), dir.resolve(tag + "-server.log"));
        Process cp = null;
        try {
            awaitListening(port, sp);
            cp = start(true, client, common, List.of("-P", Integer.toString(port), "127.0.0.1"),
                    dir.resolve(tag + "-client.log"));
            int clientRc = awaitExit(cp, "client");
            int serverRc = awaitExit(sp, "server");
            String serverOut = Files.readString(dir.resolve(tag + "-server.log"));
            String clientOut = Files.readString(dir.resolve(tag + "-client.log"));
            assertEquals(0, clientRc, "client exit status; output:\n" + clientOut + "\nserver output:\n" + serverOut);
            assertEquals(0, serverRc, "server exit status; output:\n" + serverOut + "\nclient output:\n" + clientOut);
            for (int size : DEFAULT_SIZES) {
                for (String[] r : new String[][] {row(serverOut, size, "server"), row(clientOut, size, "client")}) {
                    assertEquals(Integer.toString(ITERATIONS), r[1], size + " B: #sent");
                    assertEquals("=" + ITERATIONS, r[2], size + " B: #ack: every tagged message acknowledged");
                }
            }
        } finally {
            for (Process p : new Process[] {cp, sp}) {
                if (p != null) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
    }

    @AfterAll
    static void printSideBySide() throws IOException {
        if (RESULTS.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder("pingpong interop, " + ITERATIONS + " iterations (" + JAVA_PAIR_ITERATIONS
                + " for jfabric pairs), -c, same run"
                + " (load average " + loadAverage() + "):\n");
        RESULTS.forEach((k, v) -> sb.append(k).append(v).append('\n'));
        System.out.print(sb);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "interop-results.txt"), sb.toString(), StandardCharsets.UTF_8);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static Process start(boolean java, Spec spec, List<String> common, List<String> role, Path log)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        if (java) {
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("--enable-native-access=ALL-UNNAMED");
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add("io.jfabric.cli.Main"); // the jfabric command itself, as `jfabric pingpong` runs it
            cmd.add("pingpong");
            cmd.add("-p");
            cmd.add(spec.javaProvider());
            cmd.add("--timeout");
            cmd.add(Long.toString(PROCESS_TIMEOUT_MS / 2));
        } else {
            cmd.add(FI_PINGPONG.toString());
            cmd.add("-p");
            cmd.add(spec.cProvider());
        }
        cmd.addAll(common);
        cmd.addAll(role);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("LIBC_FATAL_STDERR_", "1");
        return pb.start();
    }

    /** Waits until something listens on {@code port} (read from /proc, so no connection is taken from the server). */
    static void awaitListening(int port, Process server) throws Exception {
        String hex = String.format(":%04X ", port);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (String f : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
                Path p = Path.of(f);
                if (Files.exists(p)) {
                    for (String line : Files.readAllLines(p)) {
                        String[] cols = line.trim().split("\\s+");
                        if (cols.length > 3 && (cols[1] + " ").endsWith(hex) && cols[3].equals("0A")) {
                            return;
                        }
                    }
                }
            }
            if (!server.isAlive()) {
                fail("the server exited (" + server.exitValue() + ") before listening on control port " + port);
            }
            Thread.sleep(20);
        }
        fail("nothing listened on control port " + port + " within 20 s");
    }

    private static int awaitExit(Process p, String what) throws InterruptedException {
        if (!p.waitFor(PROCESS_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            fail("the " + what + " did not finish within " + PROCESS_TIMEOUT_MS + " ms");
        }
        return p.exitValue();
    }

    /** The result row of {@code size} in fi_pingpong's table, split into its 8 columns. */
    private static String[] row(String output, int size, String who) {
        String want = size >= 1 << 20 ? (size >> 20) + "m" : size >= 1024 ? (size >> 10) + "k" : Integer.toString(size);
        for (String line : output.split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length == 8 && cols[0].equals(want)) {
                return cols;
            }
        }
        fail("the " + who + " printed no result row for " + want + ":\n" + output);
        return null;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            assertNotNull(s);
            return s.getLocalPort();
        }
    }
}
