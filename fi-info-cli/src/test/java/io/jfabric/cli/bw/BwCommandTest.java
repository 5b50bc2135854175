package io.jfabric.cli.bw;

import io.jfabric.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jfabric bw} and {@code rma-bw} end to end over the tcp provider on loopback: a server and a client
 * in two threads of this JVM, with data checking on (-c), so a lost, reordered or corrupted message fails
 * the run; plus the results files and the option errors.
 */
@Timeout(90)
class BwCommandTest {

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Runs "jfabric args..." as server and as client; returns {server rc, client rc}. */
    static int[] runPair(List<String> args) throws Exception {
        int port = freePort();
        List<String> srv = new ArrayList<>(args);
        srv.addAll(List.of("-B", Integer.toString(port), "--timeout", "30000"));
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> run(srv));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!listening(port) && System.nanoTime() < deadline && !server.isDone()) {
            Thread.sleep(10);
        }
        List<String> cli = new ArrayList<>(args);
        cli.addAll(List.of("-P", Integer.toString(port), "--timeout", "30000", "127.0.0.1"));
        int client = run(cli);
        return new int[]{server.get(60, TimeUnit.SECONDS), client};
    }

    static int run(List<String> args) {
        return Main.execute(args.toArray(String[]::new), new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()));
    }

    static boolean listening(int port) throws IOException {
        String hex = String.format(":%04X", port);
        for (String f : new String[]{"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Path.of(f);
            if (Files.exists(p)) {
                for (String line : Files.readAllLines(p)) {
                    String[] c = line.trim().split("\\s+");
                    if (c.length > 3 && c[1].endsWith(hex) && c[3].equals("0A")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Test
    void msgBandwidthWithDataCheckAcrossSizes() throws Exception {
        int[] rc = runPair(List.of("bw", "-p", "tcp", "-e", "msg", "-S", "1,4k,1m", "-I", "4", "-w", "1", "-W", "8", "-c",
                "--no-progress"));
        assertEquals(0, rc[0], "server exit code");
        assertEquals(0, rc[1], "client exit code");
    }

    /** Each message leaves from three pieces of its buffer (fi_sendv, fi_tsendv), every byte checked on arrival. */
    @ParameterizedTest
    @ValueSource(strings = {"tcp msg msg", "shm rdm tagged", "tcp;ofi_rxm rdm msg"})
    void msgBandwidthFromSeveralBuffersWithDataCheck(String setup) throws Exception {
        String[] p = setup.split(" ");
        int[] rc = runPair(List.of("bw", "--iov", "3", "-p", p[0], "-e", p[1], "-m", p[2], "-S", "1,4k,64k,1m", "-I", "4",
                "-w", "1", "-W", "8", "-c", "--no-progress"));
        assertEquals(0, rc[0], "server exit code");
        assertEquals(0, rc[1], "client exit code");
    }

    @Test
    void messageRateModeInjects() throws Exception {
        int[] rc = runPair(List.of("bw", "--rate", "-p", "tcp", "-I", "20", "-w", "2", "-W", "32", "-c", "--no-progress"));
        assertEquals(0, rc[0], "server exit code");
        assertEquals(0, rc[1], "client exit code");
    }

    /** --threading sets the options' level (unset by default, as fabtests leave it), and a run at it completes. */
    @Test
    void runsAtTheThreadingLevelItIsGiven() throws Exception {
        BwCommand unset = new BwCommand();
        new picocli.CommandLine(unset).parseArgs("-p", "tcp");
        assertEquals(null, unset.args.options(false, false).threading());
        BwCommand domain = new BwCommand();
        new picocli.CommandLine(domain).parseArgs("-p", "tcp", "--threading", "domain");
        assertEquals(io.jfabric.Threading.DOMAIN, domain.args.options(false, false).threading());
        int[] rc = runPair(List.of("bw", "-p", "tcp", "-S", "64,64k", "-I", "4", "-W", "8", "-c", "--no-progress",
                "--threading", "domain"));
        assertEquals(0, rc[0], "server exit code");
        assertEquals(0, rc[1], "client exit code");
    }

    @ParameterizedTest
    @ValueSource(strings = {"write", "read", "writedata"})
    void rmaBandwidthWithDataCheck(String op) throws Exception {
        int[] rc = runPair(List.of("rma-bw", "-o", op, "-p", "tcp", "-S", "1,64k,1m", "-I", "3", "-w", "1", "-W", "8",
                "-c", "--no-progress"));
        assertEquals(0, rc[0], "target exit code");
        assertEquals(0, rc[1], "initiator exit code");
    }

    /** Each operation names its buffer as three pieces (fi_readv, fi_writev, fi_writemsg), every byte checked. */
    @ParameterizedTest
    @ValueSource(strings = {"write", "read", "writedata"})
    void rmaBandwidthFromSeveralLocalBuffersWithDataCheck(String op) throws Exception {
        int[] rc = runPair(List.of("rma-bw", "-o", op, "--iov", "3", "-p", "tcp", "-S", "1,64k,1m", "-I", "3", "-w",
                "1", "-W", "8", "-c", "--no-progress"));
        assertEquals(0, rc[0], "target exit code");
        assertEquals(0, rc[1], "initiator exit code");
    }

    @Test
    void writesCsvAndJson() throws Exception {
        Path dir = Files.createTempDirectory("bw");
        Path csv = dir.resolve("r.csv");
        Path json = dir.resolve("r.json");
        int[] rc = runPair(List.of("bw", "-p", "tcp", "-S", "64,4k", "-I", "3", "-W", "4", "--no-progress",
                "--csv", csv.toString(), "--json", json.toString()));
        assertEquals(0, rc[1]);
        // both sides write to the same files; the last writer's rows are there either way
        List<String> lines = Files.readAllLines(csv);
        assertEquals(BenchReport.CSV_HEADER, lines.getFirst());
        assertEquals(3, lines.size(), "header + one row per size: " + lines);
        assertTrue(lines.get(1).contains(",64,12,768,"), lines.get(1));
        String j = Files.readString(json);
        assertTrue(j.contains("\"bytes\": 4096") && j.contains("\"latency_ns\""), j);
    }

    @Test
    void badOptionsAreRefusedBeforeAnythingOpens() {
        assertEquals(1, run(List.of("bw", "-S", "32m")));
        assertEquals(1, run(List.of("bw", "-S", "0")));
        assertEquals(1, run(List.of("bw", "-m", "rma")));
        assertEquals(1, run(List.of("bw", "-e", "dgram")));
        assertEquals(1, run(List.of("bw", "-W", "0")));
        assertEquals(1, run(List.of("rma-bw", "-o", "atomic")));
        assertEquals(1, run(List.of("rma-bw", "--iov", "5")));
        assertEquals(1, run(List.of("rma-bw", "--iov", "0")));
        assertEquals(1, run(List.of("bw", "--iov", "5")));
        assertEquals(1, run(List.of("bw", "--iov", "2", "--rate")));
        assertEquals(1, run(List.of("bw", "--threading", "fast")));
    }
}
