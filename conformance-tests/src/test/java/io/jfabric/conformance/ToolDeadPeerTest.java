package io.jfabric.conformance;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A benchmark whose peer dies: the server of {@code jfabric pingpong}, {@code bw} or {@code rma-bw} (Java), or
 * of C {@code fi_pingpong}, is SIGKILLed in the middle of a long run, and the Java client must exit non-zero
 * promptly ({@link #BOUND_MS} aimed at, {@link #CHECKED_MS} asserted) with a message that names the peer's control address, on tcp (MSG), tcp;ofi_rxm and
 * shm (RDM). Against C on shm both sides run libfabric's own shm (jfabric's shm speaks only to itself), so there
 * only the control connection tells. A bound on the reaction, not a performance figure.
 */
@Timeout(120)
class ToolDeadPeerTest {
    /** What the tools aim at (issue 20): noticing a dead peer within 2 s. */
    static final long BOUND_MS = 2_000;
    /**
     * What is asserted: the aim with room for a machine shared by many busy processes (a starved JVM can lose
     * a second between the kill and its next poll); the measured figure is printed for each run.
     */
    static final long CHECKED_MS = 2 * BOUND_MS;
    /** Longest wait for the client to reach its measuring loop before the server is killed. */
    static final long SETTLE_MS = 30_000;
    /** What `jfabric pingpong -v` prints as its sizes start (the rest of the line names the peer). */
    static final String PINGPONG_STARTED = "exchanging with the peer";
    /** The progress line bw and rma-bw print every 2 s of a long size. */
    static final String BW_PROGRESS = " ops (";

    record Run(String tool, String provider, String epType, boolean cServer) {
        @Override
        public String toString() {
            return tool + " -p " + provider + " -e " + epType + (cServer ? " against C fi_pingpong" : "");
        }

        String caseId() {
            return provider + (epType.equals("msg") ? "/FI_EP_MSG" : "/FI_EP_RDM");
        }
    }

    static Stream<Arguments> runs() {
        List<Arguments> out = new ArrayList<>();
        String[][] transports = {{"tcp", "msg"}, {"tcp;ofi_rxm", "rdm"}, {"shm", "rdm"}};
        for (String[] t : transports) {
            for (String tool : new String[] {"pingpong", "bw", "rma-bw"}) {
                out.add(Arguments.of(new Run(tool, t[0], t[1], false)));
            }
            out.add(Arguments.of(new Run("pingpong", t[0].equals("shm") ? "libfabric:shm" : t[0], t[1], true)));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void theClientExitsPromptlyNamingTheDeadServer(Run run) throws Exception {
        if (run.cServer()) {
            Assumptions.assumeTrue(Files.isExecutable(PingPongInteropTest.FI_PINGPONG),
                    "not run: " + PingPongInteropTest.FI_PINGPONG + " is not installed (package libfabric-bin)");
        }
        Assumptions.assumeTrue(FabricCases.cases().stream().anyMatch(c -> c.id().equals(run.caseId())),
                () -> "not run: jfabric offers no " + run.caseId() + " here; cases: " + FabricCases.cases());
        int port = PingPongInteropTest.freePort();
        Path dir = Files.createDirectories(Path.of("target", "dead-peer-logs"));
        String tag = run.toString().replaceAll("[^A-Za-z0-9_-]+", "_");
        Path clientLog = dir.resolve(tag + "-client.log");
        List<String> sizes = run.tool().equals("pingpong") ? List.of("-S", "64", "-I", "100000000")
                : List.of("-S", "64", "-I", "100000000", "-w", "0");
        Process server = start(run, run.cServer(), sizes, List.of("-B", Integer.toString(port)),
                dir.resolve(tag + "-server.log"));
        Process client = null;
        try {
            PingPongInteropTest.awaitListening(port, server);
            List<String> role = new ArrayList<>(List.of("-P", Integer.toString(port), "127.0.0.1"));
            if (run.tool().equals("pingpong")) {
                role.addFirst("-v"); // says when the exchange starts
            }
            client = start(run, false, sizes, role, clientLog);
            int measuring = awaitMeasuring(client, clientLog, run.tool().equals("pingpong") ? PINGPONG_STARTED
                    : BW_PROGRESS);
            Thread.sleep(300);
            server.destroyForcibly(); // SIGKILL
            long killed = System.nanoTime();
            if (!client.waitFor(Slow.ms(CHECKED_MS) + 30_000, TimeUnit.MILLISECONDS)) {
                fail("the client still runs 30 s after its server was killed: " + Files.readString(clientLog)
                        + "\nits threads:\n" + threadsOf(client));
            }
            long tookMs = (System.nanoTime() - killed) / 1_000_000;
            String out = Files.readString(clientLog).substring(measuring);
            System.out.println("[dead-peer] " + run + ": exit " + client.exitValue() + " " + tookMs
                    + " ms after the kill: " + out.strip().replace('\n', '|'));
            assertNotEquals(0, client.exitValue(), "the client's exit status once its server died: " + out);
            assertTrue(out.contains("127.0.0.1:" + port), "the client's message names the peer (127.0.0.1:" + port
                    + "): " + out);
            assertTrue(tookMs <= Slow.ms(CHECKED_MS), "the client took " + tookMs + " ms (aim " + BOUND_MS
                    + " ms, bound " + CHECKED_MS + " ms) to notice its server's death: " + out);
        } finally {
            for (Process p : new Process[] {client, server}) {
                if (p != null) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** Waits for {@code marker} in the client's output; returns where the line after it starts. */
    private static int awaitMeasuring(Process client, Path log, String marker) throws Exception {
        long deadline = System.nanoTime() + Slow.ms(SETTLE_MS) * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            String out = Files.readString(log);
            int at = out.indexOf(marker);
            int eol = at < 0 ? -1 : out.indexOf('\n', at);
            if (eol >= 0) {
                return eol + 1;
            }
            assertTrue(client.isAlive(), "the client ended before its exchange started: " + out);
            Thread.sleep(50);
        }
        fail("the client printed no \"" + marker + "\" within " + SETTLE_MS + " ms: " + Files.readString(log));
        return -1;
    }

    private static Process start(Run run, boolean c, List<String> sizes, List<String> role, Path log)
            throws java.io.IOException {
        List<String> cmd = new ArrayList<>();
        if (c) {
            cmd.addAll(List.of(PingPongInteropTest.FI_PINGPONG.toString(), "-p", run.provider().replace("libfabric:", "")));
        } else {
            cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    "io.jfabric.cli.Main", run.tool(), "-p", run.provider(), "--timeout", "30000"));
        }
        cmd.addAll(List.of("-e", run.epType()));
        cmd.addAll(sizes);
        cmd.addAll(role);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** The stack of every thread of a hung Java client ({@code jcmd Thread.print}), so a failure says where it waits. */
    private static String threadsOf(Process client) {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(client.pid()), "Thread.print").redirectErrorStream(true).start();
            String out = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            jcmd.waitFor(20, TimeUnit.SECONDS);
            return out;
        } catch (IOException | InterruptedException e) {
            return "(jcmd failed: " + e + ")";
        }
    }
}
