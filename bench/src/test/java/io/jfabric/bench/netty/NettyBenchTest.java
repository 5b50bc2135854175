package io.jfabric.bench.netty;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** bench/netty's warm-up rule, options, report, and one forked transport's run, with tiny counts. */
class NettyBenchTest {
    @Test
    void warmupEndsAfterTwoQuietRoundsInARow() {
        JitWarmup w = new JitWarmup(30);
        long second = 1_000_000_000L;
        assertFalse(w.roundDone(900, second), "the JIT compiled for 90 % of the round");
        assertFalse(w.roundDone(10, second), "one quiet round");
        assertFalse(w.roundDone(300, second), "a busy round starts the count again");
        assertFalse(w.roundDone(19, second));
        assertTrue(w.roundDone(0, second));
        assertTrue(w.quiet());
        assertEquals(5, w.rounds());
    }

    @Test
    void warmupEndsAtItsTimeLimitWhileTheJitStillCompiles() {
        JitWarmup w = new JitWarmup(2.5);
        assertFalse(w.roundDone(500, 1_000_000_000L));
        assertFalse(w.roundDone(500, 1_000_000_000L));
        assertTrue(w.roundDone(500, 1_000_000_000L));
        assertFalse(w.quiet());
        assertEquals(3.0, w.seconds(), 1e-9);
    }

    @Test
    void optionsReachTheForksUnchanged() {
        BenchOptions o = BenchOptions.parse(List.of("--forks", "3", "--rounds", "4", "--unary", "7", "--stream-kib",
                "256", "--direct-executor", "--transports", "shm,loopback", "--warmup-max-seconds", "12.5"));
        assertEquals(3, o.forks());
        assertEquals(List.of("shm", "loopback"), o.transports());
        BenchOptions child = BenchOptions.parse(o.childArgs());
        assertEquals(new BenchOptions(BenchOptions.defaults().forks(), 4, o.echoes(), 7, o.streamed(),
                BenchOptions.defaults().transports(), true, 256 * 1024, 12.5), child);
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(List.of("--rounds", "0")));
        assertTrue(bad.getMessage().contains("--rounds must be positive"), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(List.of("--frobnicate", "1")));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(List.of("--echo")));
    }

    @Test
    void reportGivesMediansAndRatiosToTheLastTransport() {
        Map<String, List<NettyBench.Sample>> s = new LinkedHashMap<>();
        s.put("jfabric shm", List.of(new NettyBench.Sample(10, 50, 30, 1500, 2000),
                new NettyBench.Sample(12, 40, 25, 1700, 1000), new NettyBench.Sample(30, 90, 33, 900, 1800)));
        s.put("epoll loopback", List.of(new NettyBench.Sample(20, 100, 90, 800, 700),
                new NettyBench.Sample(24, 120, 110, 900, 900)));
        String table = NettyBench.report(s);
        assertTrue(table.contains("| jfabric shm            |         12.0 |           50.0 |            30.0 |"
                + "             1500 |              1800 |    0.55 |     0.45 |      0.30 |      1.76 |       2.25 |"), table);
        assertTrue(table.contains("# jfabric shm            echo 10.0–30.0  unary 40.0–90.0  direct 25.0–33.0  "
                + "stream 900.0–1700.0  isReady 1000.0–2000.0"), table);
    }

    @Test
    void aForkedTransportWarmsUpAndPrintsOneSamplePerRound() throws Exception {
        BenchOptions o = BenchOptions.parse(List.of("--rounds", "2", "--echo", "20", "--unary", "20", "--stream", "4",
                "--stream-kib", "16", "--warmup-max-seconds", "0.001"));
        for (String transport : List.of("local", "shm", "shm@pinned")) {
            List<String> lines = runFork(transport, o);
            assertTrue(lines.getFirst().contains("warmed up for") && lines.getFirst().contains("(1 rounds, the time limit"),
                    transport + ": " + lines.getFirst());
            assertEquals(transport.endsWith("@pinned"), lines.getFirst().contains("jfabric shm, loops pinned:"),
                    transport + ": " + lines.getFirst());
        }
    }

    @Test
    void aStreamWrittenOnlyWhileReadyDeliversEveryMessage() throws Exception {
        // 200 x 64 KiB is past gRPC's 1 MiB window and the channel's: the isReady() server must stop and be called
        // back; the fork refuses a stream that ends short, and one that never ends fails by the default test timeout
        BenchOptions o = BenchOptions.parse(List.of("--rounds", "2", "--echo", "20", "--unary", "20", "--stream", "200",
                "--warmup-max-seconds", "0.001"));
        for (String transport : List.of("local", "shm")) {
            runFork(transport, o);
        }
    }

    /** Runs one transport's fork in this JVM; checks it printed a positive sample per round; returns its lines. */
    private static List<String> runFork(String transport, BenchOptions o) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream was = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            ForkedTransport.run(transport, o);
        } finally {
            System.setOut(was);
        }
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        List<NettyBench.Sample> samples = lines.stream().filter(l -> l.startsWith(ForkedTransport.SAMPLE))
                .map(NettyBench.Sample::parse).toList();
        assertEquals(o.rounds(), samples.size(), transport + ": " + lines);
        for (NettyBench.Sample x : samples) {
            assertTrue(x.echo() > 0 && x.unary() > 0 && x.directUnary() > 0 && x.stream() > 0 && x.readyStream() > 0,
                    transport + ": " + x);
        }
        return lines;
    }
}
