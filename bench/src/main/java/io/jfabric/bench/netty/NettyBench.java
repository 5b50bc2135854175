package io.jfabric.bench.netty;

import io.jfabric.bench.Stats;
import io.netty.channel.epoll.Epoll;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench/netty}: Netty echo, gRPC unary latency (with gRPC's default executor and with {@code directExecutor()})
 * and gRPC server-streaming throughput over jfabric's channels
 * (shm, tcp;ofi_rxm) against Netty's epoll on loopback (NIO where epoll's native file does not load), with Netty's
 * in-JVM local channel as the floor (Netty and gRPC with no transport under them), side by side.
 *
 * <p>Each transport runs in a JVM of its own ({@link ForkedTransport}), warmed up until the JIT is quiet, and the
 * forks take turns: fork 1 of every transport, then fork 2 of every transport, so that a machine's drift falls on
 * all of them alike. The table gives the median over every measured round of every fork, with each row's ratio to
 * the last transport (the loopback baseline when it is listed last).
 *
 * <pre>
 *   bench/netty [--forks 2] [--rounds 5] [--warmup-max-seconds 30] [--echo 5000] [--unary 2000] [--stream 1000]
 *               [--transports local,shm,tcp;ofi_rxm,loopback] [--direct-executor] [--stream-kib 64]
 * </pre>
 */
public final class NettyBench {
    /**
     * One measured round: echo rtt (us), unary rtt (us) with gRPC's default executor and with
     * {@code directExecutor()}, streaming MB/s from a server calling {@code onNext} in a row, and from one writing
     * only while the call is ready.
     */
    record Sample(double echo, double unary, double directUnary, double stream, double readyStream) {
        static Sample parse(String line) {
            String[] f = line.substring(ForkedTransport.SAMPLE.length()).trim().split(" ");
            return new Sample(Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]),
                    Double.parseDouble(f[3]), Double.parseDouble(f[4]));
        }

        double value(int column) {
            return switch (column) {
                case 0 -> echo;
                case 1 -> unary;
                case 2 -> directUnary;
                case 3 -> stream;
                default -> readyStream;
            };
        }
    }

    private static final int COLUMNS = 5;

    private static final String CHILD = "--child";
    /** A fork that outlives its warm-up limit by this much per round is stopped: no run waits forever. */
    private static final long SECONDS_PER_ROUND_BOUND = 120;

    private NettyBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> a = List.of(args);
        if (a.contains("-h") || a.contains("--help")) {
            System.out.println(BenchOptions.USAGE);
            return;
        }
        if (!a.isEmpty() && a.getFirst().equals(CHILD)) {
            // a fork: its event loops are not daemons, so it always ends with an explicit exit
            int status = 0;
            try {
                ForkedTransport.run(a.get(1), BenchOptions.parse(a.subList(2, a.size())));
            } catch (Throwable e) {
                e.printStackTrace();
                status = 1;
            }
            System.out.flush();
            Runtime.getRuntime().halt(status);
        }
        BenchOptions o = BenchOptions.parse(a);
        boolean epoll = Epoll.isAvailable();
        if (!epoll) {
            System.out.println("# epoll unavailable (" + Epoll.unavailabilityCause() + "): NIO is the baseline");
        }
        System.out.printf("# %d forks per transport, each warmed up until the JIT is quiet (at most %.0f s), then %d "
                + "rounds; per round: %d echoes of 64 B, %d gRPC unary calls of 64 B (then as many on directExecutor()), "
                + "%d streamed messages of %d KiB (onNext in a row, then only while isReady())%s%n",
                o.forks(), o.warmupMaxSeconds(), o.rounds(), o.echoes(), o.unaries(), o.streamed(),
                o.streamChunk() / 1024, o.directExecutor() ? ", gRPC on directExecutor()" : "");
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        for (String t : o.transports()) {
            samples.put(ForkedTransport.displayName(t, epoll), new ArrayList<>());
        }
        for (int f = 1; f <= o.forks(); f++) {
            for (String t : o.transports()) {
                samples.get(ForkedTransport.displayName(t, epoll)).addAll(fork(t, f, o));
            }
        }
        System.out.print(report(samples));
    }

    /** Runs one fork of transport {@code key}; its samples, or an exception when it fails or yields none. */
    private static List<Sample> fork(String key, int fork, BenchOptions o) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), NettyBench.class.getName(), CHILD, key));
        cmd.addAll(o.childArgs());
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        long bound = (long) o.warmupMaxSeconds() + SECONDS_PER_ROUND_BOUND * (o.rounds() + 1);
        Thread watchdog = Thread.ofPlatform().daemon().start(() -> {
            try {
                if (!p.waitFor(bound, TimeUnit.SECONDS)) {
                    System.out.println("# fork " + fork + " of " + key + " still running after " + bound + " s: stopped");
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        });
        List<Sample> got = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(ForkedTransport.SAMPLE)) {
                    got.add(Sample.parse(line));
                } else {
                    System.out.println(line.startsWith("# ") ? "# fork " + fork + ": " + line.substring(2) : line);
                }
            }
        }
        int status = p.waitFor();
        watchdog.join();
        if (status != 0 || got.size() != o.rounds()) {
            throw new IOException("bench/netty: fork " + fork + " of " + key + " exited " + status + " with "
                    + got.size() + " of " + o.rounds() + " rounds (its output is above)");
        }
        return got;
    }

    /** The Markdown table of medians, each row against the last transport, and each column's spread. */
    static String report(Map<String, List<Sample>> samples) {
        List<String> names = List.copyOf(samples.keySet());
        double[] baseline = medians(samples.get(names.getLast()));
        StringBuilder b = new StringBuilder();
        b.append(String.format("%n| %-22s | %12s | %14s | %15s | %16s | %17s | %7s | %8s | %9s | %9s | %10s |%n",
                "transport", "echo rtt us", "gRPC unary us", "unary direct us", "gRPC stream MB/s", "isReady() MB/s",
                "echo ×", "unary ×", "direct ×", "stream ×", "isReady ×"));
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String n : names) {
            double[] m = medians(samples.get(n));
            b.append(String.format("| %-22s | %12.1f | %14.1f | %15.1f | %16.0f | %17.0f | %7.2f | %8.2f | %9.2f | %9.2f "
                    + "| %10.2f |%n", n, m[0], m[1], m[2], m[3], m[4], m[0] / baseline[0], m[1] / baseline[1],
                    m[2] / baseline[2], m[3] / baseline[3], m[4] / baseline[4]));
        }
        b.append("(× = this row ÷ ").append(names.getLast()).append("; unary: gRPC's default executor; direct: "
                + "directExecutor() on server and channel; stream: onNext in a row; isReady(): streamed only while the "
                + "call is ready; spread: min–max over rounds below)\n");
        for (String n : names) {
            List<Sample> s = samples.get(n);
            b.append(String.format("# %-22s echo %s  unary %s  direct %s  stream %s  isReady %s%n", n, spread(s, 0),
                    spread(s, 1), spread(s, 2), spread(s, 3), spread(s, 4)));
        }
        return b.toString();
    }

    private static double[] medians(List<Sample> s) {
        double[] m = new double[COLUMNS];
        for (int c = 0; c < COLUMNS; c++) {
            m[c] = Stats.median(column(s, c));
        }
        return m;
    }

    private static List<Double> column(List<Sample> s, int which) {
        return s.stream().map(x -> x.value(which)).toList();
    }

    private static String spread(List<Sample> s, int which) {
        double[] c = column(s, which).stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(c);
        return String.format("%.1f–%.1f", c[0], c[c.length - 1]);
    }
}
