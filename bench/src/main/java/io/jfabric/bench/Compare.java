package io.jfabric.bench;

import java.awt.Color;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The engine of {@code bench/compare}: jfabric's {@code pingpong} against libfabric's C {@code fi_pingpong}
 * on the same transport in one run, interleaved A B A B (at least 5 pairs per size), each pair followed by
 * the raw floor of that transport (for tcp and tcp;ofi_rxm a busy-polling loopback socket round trip, since
 * both tools poll without sleeping; for shm a cache-line ping-pong between two processes). Prints the medians and the ratios jfabric ÷
 * libfabric and floor ÷ libfabric per size, and writes runs.csv, summary.csv and one PNG per transport.
 * jfabric's runs first do untimed round trips ({@code pingpong --warmup}, see {@link #warmup}), so the
 * timed loop measures JIT-compiled code rather than the interpreter; C needs no such warm-up.
 *
 * <p>Options: {@code --transports tcp,rxm,shm}, {@code --sizes 64,4k,64k,1m}, {@code --pairs 5},
 * {@code --iters-scale 1.0}, {@code --full} (1 B to 16 MiB, 7 pairs), {@code --out DIR}, {@code --jar},
 * {@code --fi-pingpong}, {@code --floors}, {@code --timeout MS}.
 */
public final class Compare {
    private static final List<Long> DEFAULT_SIZES = List.of(64L, 4096L, 65536L, 1L << 20);
    private static final List<Long> FULL_SIZES = List.of(1L, 64L, 256L, 1024L, 4096L, 16384L, 65536L, 262144L,
            1L << 20, 4L << 20, 16L << 20);

    private List<Transport> transports = Transport.ALL;
    private List<Long> sizes = DEFAULT_SIZES;
    private int pairs = 5;
    private double itersScale = 1.0;
    private Path out;
    private String jar = "fi-info-cli/target/jfabric.jar";
    private String fiPingpong = "fi_pingpong";
    private String floors = "bench/target/floors";
    private long timeoutMs = 180_000;
    /**
     * --cold: the first 10,000 round trips at 64 B with no warm-up, with the default JIT and in each of
     * {@link #COLD_CONFIGS}. Sizes above 4 KiB (bulk) time instead the second 1,000 round trips of a fresh process
     * (1,000 untimed first) in the same configurations, beside the steady state after 20,000.
     */
    private boolean cold;
    private String aotCache;
    /** --threading: jfabric pingpong's threading level; null leaves the hints' level unset, as fi_pingpong does. */
    private String threading;
    private final Ports ports = new Ports();
    private final PrintStream log = System.out;

    /** Measurements of one (transport, size). */
    private static final class Cell {
        final List<Double> jfLat = new ArrayList<>();
        final List<Double> jfBw = new ArrayList<>();
        final List<Double> lfLat = new ArrayList<>();
        final List<Double> lfBw = new ArrayList<>();
        final List<Double> floorLat = new ArrayList<>();
        final List<Double> floorBw = new ArrayList<>();
        /** shm only: the two-line floor (one line each way), measured in the same pairs as the one-line floor. */
        final List<Double> floor2Lat = new ArrayList<>();
        /** --cold only: jfabric's runs in each {@link #COLD_CONFIGS} configuration, latency and bandwidth. */
        final Map<String, List<Double>> coldLat = new LinkedHashMap<>();
        final Map<String, List<Double>> coldBw = new LinkedHashMap<>();
        /** --cold, bulk sizes only: jfabric's steady state (the default JIT, warmed as outside --cold). */
        final List<Double> steadyLat = new ArrayList<>();
        final List<Double> steadyBw = new ArrayList<>();
    }

    public static void main(String[] args) throws Exception {
        boolean rate = List.of(args).contains("--rate");
        Compare c = rate ? null : new Compare();
        RateCompare r = rate ? new RateCompare() : null;
        try {
            if (rate) {
                r.parse(args);
            } else {
                c.parse(args);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("bench/compare: " + e.getMessage());
            System.exit(2);
        }
        System.exit(rate ? r.run() : c.run());
    }

    void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--transports" -> transports = transportList(value(args, ++i, a));
                case "--sizes" -> sizes = sizeList(value(args, ++i, a));
                case "--full" -> {
                    sizes = FULL_SIZES;
                    pairs = Math.max(pairs, 7);
                }
                case "--pairs" -> pairs = Integer.parseInt(value(args, ++i, a));
                case "--iters-scale" -> itersScale = Double.parseDouble(value(args, ++i, a));
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--jar" -> jar = value(args, ++i, a);
                case "--fi-pingpong" -> fiPingpong = value(args, ++i, a);
                case "--floors" -> floors = value(args, ++i, a);
                case "--timeout" -> timeoutMs = Long.parseLong(value(args, ++i, a));
                case "--cold" -> cold = true;
                case "--aot-cache" -> aotCache = value(args, ++i, a);
                case "--threading" -> threading = value(args, ++i, a);
                default -> throw new IllegalArgumentException("unknown option " + a + " (see bench/compare --help)");
            }
        }
        if (pairs < 5) {
            throw new IllegalArgumentException("--pairs " + pairs + ": at least 5 pairs per size");
        }
        if (cold && !List.of(args).contains("--sizes")) {
            sizes = List.of(64L);
        }
        if (aotCache == null) {
            aotCache = Path.of(jar).resolveSibling("jfabric.aot").toString();
        }
        if (out == null) {
            out = Path.of("bench", "results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
    }

    static String value(String[] args, int i, String opt) {
        if (i >= args.length) {
            throw new IllegalArgumentException(opt + " needs a value");
        }
        return args[i];
    }

    static List<Transport> transportList(String spec) {
        List<Transport> t = new ArrayList<>();
        for (String k : spec.split(",")) {
            t.add(Transport.byKey(k.trim()));
        }
        return t;
    }

    static List<Long> sizeList(String spec) {
        List<Long> s = new ArrayList<>();
        for (String k : spec.split(",")) {
            s.add(PingPongResult.parseSize(k.trim()));
        }
        return s;
    }

    /** fi_pingpong's iteration count for a size: enough for a stable number, scaled by --iters-scale. */
    long iterations(long size) {
        if (cold) {
            return Math.max(20, Math.round((bulk(size) ? COLD_BULK_ROUND_TRIPS : COLD_ROUND_TRIPS) * itersScale));
        }
        long base = size <= 4096 ? 50_000 : Math.max(500, 1_000_000_000L / size);
        return Math.max(20, Math.round(base * itersScale));
    }

    /**
     * jfabric's untimed round trips before the timed ones: as many as timed, and enough for C2 to compile the loop.
     * For small messages that is a matter of time: 50,000 shm round trips last about 50 ms, often less than C2 takes,
     * and a run timed before it lands settles at ~2 us instead of ~0.5 us (measured: three runs each way,
     * 2.37/1.82/1.97 us after 50,000 against 0.42/0.70/0.87 us after 2,000,000). For large ones it is a matter of
     * count: code that runs once per message (rxm's rendezvous, the RMA read response) reaches C2 only after some
     * thousands of messages, so 1 MiB runs warmed with their own ~1,000 round trips were timed in C1 code (rxm
     * 1 MiB: ~400 us per transfer against 168 us after 20,000). Capped at 32 GiB moved, so 16 MiB stays
     * bounded. fi_pingpong, compiled ahead of time, needs none.
     */
    static long warmup(Transport t, long size, long iters) {
        if (size > 4096) {
            return Math.max(iters, Math.min(LARGE_WARMUP_ROUND_TRIPS, LARGE_WARMUP_BYTES / size));
        }
        return Math.max(iters, t.floor().equals("shm") ? 2_000_000 : 200_000);
    }

    private static final long LARGE_WARMUP_ROUND_TRIPS = 20_000;
    private static final long LARGE_WARMUP_BYTES = 32L << 30;
    private static final long COLD_ROUND_TRIPS = 10_000;
    /** The bulk cold target: bandwidth after this many round trips, timed over as many more. */
    private static final long COLD_BULK_ROUND_TRIPS = 1_000;

    /**
     * The JVM configurations --cold runs beside the default one, each with the launcher's AOT cache as the launcher
     * passes it (its classes, not its training profiles; docs/performance.md, "The AOT cache").
     */
    record ColdConfig(String impl, String label, List<String> flags) {
    }

    static final List<ColdConfig> COLD_CONFIGS = List.of(
            new ColdConfig("jfabric-aot", "with the AOT cache", List.of()),
            new ColdConfig("jfabric-aot-c1", "the AOT cache and C1 only", List.of("-XX:TieredStopAtLevel=1")),
            // C1 compiles a method after 20 calls instead of 200: the data path leaves the interpreter ten times sooner
            new ColdConfig("jfabric-aot-c1-early", "the AOT cache, C1 only, compile thresholds ÷ 10",
                    List.of("-XX:TieredStopAtLevel=1", "-XX:CompileThresholdScaling=0.1")));

    /** Sizes whose cold start is judged by bandwidth after 1,000 round trips rather than by the first 10,000. */
    static boolean bulk(long size) {
        return size > 4096;
    }

    /** jfabric's untimed round trips in this run: none for a cold small size, the first 1,000 for a cold bulk one. */
    long jfabricWarmup(Transport t, long size, long iters) {
        if (cold) {
            return bulk(size) ? COLD_BULK_ROUND_TRIPS : 0;
        }
        return warmup(t, size, iters);
    }

    private int run() throws IOException, InterruptedException {
        Files.createDirectories(out);
        ProcessRunner runner = new ProcessRunner(timeoutMs);
        String java = ProcessHandle.current().info().command().orElse("java");
        StringBuilder runsCsv = new StringBuilder("transport,impl,bytes,pair,iterations,usec_per_xfer,mb_per_sec\n");
        StringBuilder summaryCsv = new StringBuilder("transport,bytes,jfabric_usec,libfabric_usec,latency_ratio,"
                + "jfabric_mbps,libfabric_mbps,bandwidth_ratio,floor,floor_usec,floor_mbps,floor_latency_ratio,"
                + "floor_bandwidth_ratio,jfabric_floor_ratio,floor2_usec,jfabric_floor2_ratio,status\n");
        log.printf("bench/compare: %s, sizes %s, %d pairs per size; results in %s%n", transportKeys(), sizes, pairs, out);
        for (Transport t : transports) {
            String jfMissing = available(runner, List.of(java, "--enable-native-access=ALL-UNNAMED", "-jar", jar,
                    "info", "-p", t.jfabricProv(), "-t", epTypeName(t)), "jfabric provider " + t.jfabricProv());
            String lfMissing = available(runner, List.of("fi_info", "-p", t.libfabricProv(), "-t", epTypeName(t)),
                    "libfabric provider " + t.libfabricProv());
            log.printf("%n== %s: jfabric %s, libfabric %s ==%n", t.title(), jfMissing == null ? "present" : jfMissing,
                    lfMissing == null ? "present" : lfMissing);
            Map<Long, Cell> cells = new LinkedHashMap<>();
            for (long size : sizes) {
                Cell cell = new Cell();
                cells.put(size, cell);
                long iters = iterations(size);
                for (int pair = 1; pair <= pairs; pair++) {
                    if (jfMissing == null) {
                        List<String> base = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-jar",
                                jar, "pingpong", "-p", t.jfabricProv(), "-e", t.epType(), "-S", Long.toString(size),
                                "-I", Long.toString(iters), "--warmup", Long.toString(jfabricWarmup(t, size, iters))));
                        if (threading != null) {
                            base.addAll(List.of("--threading", threading));
                        }
                        record(runner, "jfabric", t, size, pair, iters, base, cell.jfLat, cell.jfBw, runsCsv);
                        if (cold && bulk(size)) {
                            List<String> steady = new ArrayList<>(base);
                            steady.set(steady.indexOf("--warmup") + 1, Long.toString(warmup(t, size, iters)));
                            record(runner, "jfabric-steady", t, size, pair, iters, steady, cell.steadyLat,
                                    cell.steadyBw, runsCsv);
                        }
                        if (cold && Files.isRegularFile(Path.of(aotCache))) {
                            for (ColdConfig config : COLD_CONFIGS) {
                                List<String> cmd = new ArrayList<>(base);
                                cmd.addAll(1, List.of("-XX:AOTCache=" + aotCache, "-XX:+UnlockDiagnosticVMOptions",
                                        "-XX:-AOTReplayTraining", "-Xlog:aot*=off,cds*=off"));
                                cmd.addAll(1, config.flags());
                                record(runner, config.impl(), t, size, pair, iters, cmd,
                                        cell.coldLat.computeIfAbsent(config.impl(), k -> new ArrayList<>()),
                                        cell.coldBw.computeIfAbsent(config.impl(), k -> new ArrayList<>()), runsCsv);
                            }
                        }
                    }
                    if (lfMissing == null) {
                        List<String> base = List.of(fiPingpong, "-p", t.libfabricProv(), "-e", t.epType(), "-S",
                                Long.toString(size), "-I", Long.toString(iters));
                        record(runner, "libfabric", t, size, pair, iters, base, cell.lfLat, cell.lfBw, runsCsv);
                    }
                    floor(runner, t, size, pair, iters, cell, runsCsv);
                }
                String status = jfMissing != null ? "not run: provider missing" : lfMissing != null ? "not run: " + lfMissing : "ok";
                summaryRow(t, size, cell, status, summaryCsv);
            }
            plot(t, cells);
        }
        Files.writeString(out.resolve("runs.csv"), runsCsv);
        Files.writeString(out.resolve("summary.csv"), summaryCsv);
        log.printf("%nwrote %s, %s and the plots %s/<transport>.png%n", out.resolve("runs.csv"),
                out.resolve("summary.csv"), out);
        return 0;
    }

    private static String epTypeName(Transport t) {
        return "FI_EP_" + t.epType().toUpperCase(Locale.ROOT);
    }

    private String transportKeys() {
        List<String> k = new ArrayList<>();
        for (Transport t : transports) {
            k.add(t.jfabricProv());
        }
        return String.join(", ", k);
    }

    /** Null when {@code cmd} (an info query) finds the provider, else why not. */
    private String available(ProcessRunner runner, List<String> cmd, String what) throws InterruptedException {
        try {
            ProcessRunner.Result r = runner.run(cmd);
            return r.ok() && r.stdout().contains("provider:") ? null : "missing (" + what + ")";
        } catch (IOException e) {
            return "missing (" + what + ": " + e.getMessage() + ")";
        }
    }

    private void record(ProcessRunner runner, String impl, Transport t, long size, int pair, long iters,
                        List<String> base, List<Double> lat, List<Double> bw, StringBuilder csv)
            throws IOException, InterruptedException {
        int port = ports.next();
        List<String> server = new ArrayList<>(base);
        server.addAll(List.of("-B", Integer.toString(port)));
        List<String> client = new ArrayList<>(base);
        client.addAll(List.of("-P", Integer.toString(port), "127.0.0.1"));
        ProcessRunner.Result r = runner.runPair(server, client, port);
        PingPongResult p = r.ok() ? PingPongResult.parse(r.stdout()) : null;
        if (p == null) {
            log.printf("  %-9s %8s pair %d: FAILED (exit %d) %s%n", impl, Plot.sizeLabel(size), pair, r.exitCode(),
                    firstLine(r.stderr() + " " + r.stdout()));
            csv.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,,%n", t.key(), impl, size, pair, iters));
            return;
        }
        lat.add(p.usecPerXfer());
        bw.add(p.mbPerSec());
        log.printf(Locale.ROOT, "  %-9s %8s pair %d: %10.2f usec/xfer %10.2f MB/s%n", impl, Plot.sizeLabel(size), pair,
                p.usecPerXfer(), p.mbPerSec());
        csv.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%.3f,%.3f%n", t.key(), impl, size, pair, iters,
                p.usecPerXfer(), p.mbPerSec()));
    }

    /** The transport's raw floor: the socket at every size; the cache line once per pair at the smallest size. */
    private void floor(ProcessRunner runner, Transport t, long size, int pair, long iters, Cell cell, StringBuilder csv)
            throws IOException, InterruptedException {
        List<String> cmd;
        if (t.floor().equals("sock")) {
            cmd = List.of(floors, "sock", Long.toString(size), Long.toString(iters));
        } else if (size == sizes.getFirst()) {
            cmd = List.of(floors, "shm", Long.toString(Math.max(10_000, iters * 10)));
            floorRun(runner, t, "shm2", size, pair, iters, List.of(floors, "shm2", cmd.get(2)), cell.floor2Lat, new ArrayList<>(), csv);
        } else {
            return;
        }
        floorRun(runner, t, t.floor(), size, pair, iters, cmd, cell.floorLat, cell.floorBw, csv);
    }

    private void floorRun(ProcessRunner runner, Transport t, String name, long size, int pair, long iters, List<String> cmd,
                          List<Double> latencies, List<Double> bandwidths, StringBuilder csv)
            throws IOException, InterruptedException {
        ProcessRunner.Result r = runner.run(cmd);
        double lat = field(r.stdout(), "usec_per_xfer=");
        double bw = field(r.stdout(), "mb_per_sec=");
        if (!r.ok() || Double.isNaN(lat)) {
            log.printf("  floor-%s %8s pair %d: FAILED %s%n", name, Plot.sizeLabel(size), pair, firstLine(r.stderr()));
            return;
        }
        latencies.add(lat);
        bandwidths.add(bw);
        log.printf(Locale.ROOT, "  floor-%-4s%8s pair %d: %10.3f usec/xfer %10.2f MB/s%n", name, Plot.sizeLabel(size),
                pair, lat, bw);
        csv.append(String.format(Locale.ROOT, "%s,floor-%s,%d,%d,%d,%.3f,%.3f%n", t.key(), name, size, pair, iters,
                lat, bw));
    }

    private void summaryRow(Transport t, long size, Cell c, String status, StringBuilder csv) {
        double jl = Stats.median(c.jfLat);
        double ll = Stats.median(c.lfLat);
        double jb = Stats.median(c.jfBw);
        double lb = Stats.median(c.lfBw);
        double fl = Stats.median(c.floorLat);
        double fb = Stats.median(c.floorBw);
        double f2 = Stats.median(c.floor2Lat);
        log.printf(Locale.ROOT, "  %-12s %8s  median latency jfabric %s libfabric %s ratio %s | bandwidth jfabric %s "
                        + "libfabric %s ratio %s | floor-%s %s usec (÷ libfabric %s, jfabric ÷ floor %s)%s%s%n",
                t.jfabricProv(), Plot.sizeLabel(size), num(jl), num(ll), num(jl / ll), num(jb), num(lb), num(jb / lb),
                t.floor(), num(fl), num(fl / ll), num(jl / fl),
                c.floor2Lat.isEmpty() ? "" : " | floor-shm2 " + num(f2) + " usec (jfabric ÷ floor " + num(jl / f2) + ")",
                status.equals("ok") ? "" : "  [" + status + "]");
        double sb = Stats.median(c.steadyBw);
        for (ColdConfig config : COLD_CONFIGS) {
            List<Double> lat = c.coldLat.get(config.impl());
            if (lat == null) {
                continue;
            }
            double cl = Stats.median(lat);
            log.printf(Locale.ROOT, "  %-12s %8s  cold, %s: %s usec (÷ libfabric %s)%s%n", t.jfabricProv(),
                    Plot.sizeLabel(size), config.label(), num(cl), num(cl / ll), c.steadyBw.isEmpty() ? ""
                            : "; bandwidth ÷ jfabric's steady state " + num(Stats.median(c.coldBw.get(config.impl())) / sb));
        }
        if (!c.steadyBw.isEmpty()) {
            log.printf(Locale.ROOT, "  %-12s %8s  jfabric's steady state %s MB/s; after 1,000 round trips with the "
                    + "default JIT %s of it%n", t.jfabricProv(), Plot.sizeLabel(size), num(sb), num(jb / sb));
        }
        csv.append(String.format(Locale.ROOT, "%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s%n", t.key(), size,
                num(jl), num(ll), num(jl / ll), num(jb), num(lb), num(jb / lb), t.floor(), num(fl), num(fb), num(fl / ll),
                num(fb / lb), num(jl / fl), num(f2), num(jl / f2), status));
    }

    private void plot(Transport t, Map<Long, Cell> cells) throws IOException {
        long[] s = new long[cells.size()];
        int n = s.length;
        double[][] v = new double[7][n];
        int i = 0;
        for (Map.Entry<Long, Cell> e : cells.entrySet()) {
            s[i] = e.getKey();
            Cell c = e.getValue();
            v[0][i] = Stats.median(c.jfLat);
            v[1][i] = Stats.median(c.jfBw);
            v[2][i] = Stats.median(c.lfLat);
            v[3][i] = Stats.median(c.lfBw);
            v[4][i] = Stats.median(c.floorLat);
            v[5][i] = Stats.median(c.floorBw);
            v[6][i] = Stats.median(c.floor2Lat);
            i++;
        }
        List<Plot.Series> series = new ArrayList<>();
        series.add(new Plot.Series("jfabric " + t.jfabricProv(), new Color(200, 40, 40), false, v[0], v[1]));
        series.add(new Plot.Series("libfabric " + t.libfabricProv() + " (fi_pingpong)", new Color(30, 90, 200), false,
                v[2], v[3]));
        series.add(new Plot.Series(t.floor().equals("sock") ? "floor: busy-polling loopback socket" : "floor: cache-line ping-pong",
                new Color(90, 90, 90), true, v[4], v[5]));
        if (t.floor().equals("shm")) {
            double[] none = new double[n];
            java.util.Arrays.fill(none, Double.NaN);
            series.add(new Plot.Series("floor: two cache lines, one each way", new Color(150, 150, 150), true, v[6], none));
        }
        String title = "jfabric vs libfabric, " + t.title() + " (median of " + pairs + " interleaved pairs)";
        Plot.render(out.resolve(t.key() + ".png"), title, s, series);
    }

    static double field(String text, String key) {
        int at = text.indexOf(key);
        if (at < 0) {
            return Double.NaN;
        }
        int end = at + key.length();
        while (end < text.length() && !Character.isWhitespace(text.charAt(end))) {
            end++;
        }
        return Double.parseDouble(text.substring(at + key.length(), end));
    }

    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.1f" : v >= 1 ? "%.2f" : "%.3f", v);
    }

    static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }
}
