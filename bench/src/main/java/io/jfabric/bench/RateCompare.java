package io.jfabric.bench;

import java.awt.Color;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bench/compare --rate}: message rate of a Java provider against {@code libfabric:<same>}, both through
 * the same tool ({@code jfabric bw --rate}, fabtests' bandwidth loop with fi_inject up to inject_size), so the
 * ratio is the providers' and not the tools'. Each pair is one jfabric run over every size, then one libfabric
 * run; the table gives the medians of the client's Mxfers/sec per size and the ratio jfabric ÷ libfabric (above
 * 1 is faster). Writes rate-runs.csv, rate-summary.csv and rate-&lt;transport&gt;.png to --out.
 *
 * <p>Options: {@code --transports tcp,rxm,shm}, {@code --sizes 1,8,64,256}, {@code --pairs 5}, {@code --window 64},
 * {@code --windows 2000} (timed windows per size), {@code --warmup-windows 2000}, {@code --tagged}, {@code --more}
 * (every inject of a window but the last with FI_MORE, on both sides of each pair), {@code --out},
 * {@code --jar}, {@code --timeout MS}, {@code --threading LEVEL} (both tools' hints; unset by default, as in
 * fabtests); the options of the latency mode that do not apply are ignored.
 */
final class RateCompare {
    private List<Transport> transports = Transport.ALL;
    private List<Long> sizes = List.of(1L, 8L, 64L, 256L);
    private int pairs = 5;
    private int window = 64;
    private int windows = 2000;
    private int warmupWindows = 2000;
    private boolean tagged;
    private boolean more;
    /** --threading: the hints' threading level of every run, or null to leave it unset. */
    private String threading;
    private Path out;
    private String jar = "fi-info-cli/target/jfabric.jar";
    private long timeoutMs = 180_000;
    private final Ports ports = new Ports();
    private final PrintStream log = System.out;

    void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--rate", "--full" -> { }
                case "--transports" -> transports = Compare.transportList(Compare.value(args, ++i, a));
                case "--sizes" -> sizes = Compare.sizeList(Compare.value(args, ++i, a));
                case "--pairs" -> pairs = Integer.parseInt(Compare.value(args, ++i, a));
                case "--window" -> window = Integer.parseInt(Compare.value(args, ++i, a));
                case "--windows" -> windows = Integer.parseInt(Compare.value(args, ++i, a));
                case "--warmup-windows" -> warmupWindows = Integer.parseInt(Compare.value(args, ++i, a));
                case "--tagged" -> tagged = true;
                case "--more" -> more = true;
                case "--threading" -> threading = Compare.value(args, ++i, a);
                case "--out" -> out = Path.of(Compare.value(args, ++i, a));
                case "--jar" -> jar = Compare.value(args, ++i, a);
                case "--timeout" -> timeoutMs = Long.parseLong(Compare.value(args, ++i, a));
                case "--floors", "--fi-pingpong", "--iters-scale" -> i++;
                default -> throw new IllegalArgumentException("unknown option " + a + " (see bench/compare --help)");
            }
        }
        if (pairs < 5) {
            throw new IllegalArgumentException("--pairs " + pairs + ": at least 5 pairs");
        }
        if (out == null) {
            out = Path.of("bench", "results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
    }

    int run() throws IOException, InterruptedException {
        Files.createDirectories(out);
        ProcessRunner runner = new ProcessRunner(timeoutMs);
        String java = ProcessHandle.current().info().command().orElse("java");
        StringBuilder runsCsv = new StringBuilder("transport,impl,provider,bytes,pair,mops_per_sec\n");
        StringBuilder summaryCsv = new StringBuilder("transport,bytes,jfabric_mops,libfabric_mops,rate_ratio\n");
        log.printf("bench/compare --rate: %s, sizes %s (each run goes through them twice and times the second pass), "
                + "window %d, %d timed windows after %d untimed, %d pairs%s; "
                + "results in %s%n", transports.stream().map(Transport::jfabricProv).toList(), sizes, window, windows,
                warmupWindows, pairs, (tagged ? ", tagged" : "") + (more ? ", FI_MORE" : ""), out);
        for (Transport t : transports) {
            String lfProv = t.jfabricProv().startsWith("libfabric:") ? t.jfabricProv() : "libfabric:" + t.libfabricProv();
            Map<Long, List<Double>> jf = new HashMap<>();
            Map<Long, List<Double>> lf = new HashMap<>();
            log.printf("%n== %s: %s against %s ==%n", t.title(), t.jfabricProv(), lfProv);
            for (int pair = 1; pair <= pairs; pair++) {
                record(runner, java, t, t.jfabricProv(), "jfabric", pair, jf, runsCsv);
                record(runner, java, t, lfProv, "libfabric", pair, lf, runsCsv);
            }
            long[] s = new long[sizes.size()];
            double[][] v = new double[4][s.length];
            for (int i = 0; i < s.length; i++) {
                s[i] = sizes.get(i);
                double j = Stats.median(jf.getOrDefault(s[i], List.of()));
                double l = Stats.median(lf.getOrDefault(s[i], List.of()));
                v[0][i] = 1 / j;
                v[1][i] = j;
                v[2][i] = 1 / l;
                v[3][i] = l;
                log.printf(Locale.ROOT, "  %-12s %6s  median Mxfers/sec jfabric %s libfabric %s ratio %s%n", t.jfabricProv(),
                        Plot.sizeLabel(s[i]), Compare.num(j), Compare.num(l), Compare.num(j / l));
                summaryCsv.append(String.format(Locale.ROOT, "%s,%d,%s,%s,%s%n", t.key(), s[i], Compare.num(j),
                        Compare.num(l), Compare.num(j / l)));
            }
            List<Plot.Series> series = List.of(
                    new Plot.Series("jfabric " + t.jfabricProv(), new Color(200, 40, 40), false, v[0], v[1]),
                    new Plot.Series(lfProv + " (same tool)", new Color(30, 90, 200), false, v[2], v[3]));
            Plot.render(out.resolve("rate-" + t.key() + ".png"), "message rate, " + t.title() + ", window " + window
                    + " (median of " + pairs + " interleaved pairs)", s, series, "usec per message (1 / rate)",
                    "message rate (Mxfers/sec)");
        }
        Files.writeString(out.resolve("rate-runs.csv"), runsCsv);
        Files.writeString(out.resolve("rate-summary.csv"), summaryCsv);
        log.printf("%nwrote %s, %s and the plots %s/rate-<transport>.png%n", out.resolve("rate-runs.csv"),
                out.resolve("rate-summary.csv"), out);
        return 0;
    }

    /**
     * One run of {@code jfabric bw --rate} over every size on {@code prov}; the client's rates go into {@code into}.
     * Each process goes through the size list twice and the second pass is kept ({@link #parseRates} keeps a size's
     * last row): on 2 cores the first size's untimed windows end before C2 has compiled the path (a Java tcp run of
     * 1,8,1,8 B gave 0.45, 0.45, 0.80, 0.59 Mxfers/s), so the first pass would time the JIT rather than the provider.
     */
    private void record(ProcessRunner runner, String java, Transport t, String prov, String impl, int pair,
                        Map<Long, List<Double>> into, StringBuilder csv) throws IOException, InterruptedException {
        int port = ports.next();
        List<String> base = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-jar", jar, "bw",
                "--rate", "-p", prov, "-e", t.epType(), "-m", tagged ? "tagged" : "msg", "-S", joinSizes() + "," + joinSizes(),
                "-W", Integer.toString(window), "-I", Integer.toString(windows), "-w", Integer.toString(warmupWindows),
                "--no-progress", "--csv", "-"));
        if (more) {
            base.add("--more");
        }
        if (threading != null) {
            base.addAll(List.of("--threading", threading));
        }
        List<String> server = new ArrayList<>(base);
        server.addAll(List.of("-B", Integer.toString(port)));
        List<String> client = new ArrayList<>(base);
        client.addAll(List.of("-P", Integer.toString(port), "127.0.0.1"));
        ProcessRunner.Result r = runner.runPair(server, client, port);
        Map<Long, Double> rates = r.ok() ? parseRates(r.stdout()) : Map.of();
        if (rates.isEmpty()) {
            log.printf("  %-9s pair %d: FAILED (exit %d) %s%n", impl, pair, r.exitCode(),
                    Compare.firstLine(r.stderr() + " " + r.stdout()));
            return;
        }
        StringBuilder line = new StringBuilder();
        for (long size : sizes) {
            Double m = rates.get(size);
            if (m != null) {
                into.computeIfAbsent(size, k -> new ArrayList<>()).add(m);
                csv.append(String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%.4f%n", t.key(), impl, prov, size, pair, m));
                line.append(String.format(Locale.ROOT, " %s B %.3f", Plot.sizeLabel(size), m));
            }
        }
        log.printf("  %-9s pair %d: Mxfers/sec%s%n", impl, pair, line);
    }

    private String joinSizes() {
        List<String> s = new ArrayList<>();
        for (long size : sizes) {
            s.add(Long.toString(size));
        }
        return String.join(",", s);
    }

    /** The sender's rows of bw's CSV ({@code test,bytes,ops,total_bytes,time_ns,mb_per_sec,mops_per_sec,...}). */
    static Map<Long, Double> parseRates(String stdout) {
        Map<Long, Double> rates = new HashMap<>();
        for (String line : stdout.split("\n")) {
            String[] f = line.trim().split(",");
            if (f.length < 7 || !f[0].startsWith("rate-") || f[0].endsWith("-rx")) {
                continue;
            }
            try {
                rates.put(Long.parseLong(f[1]), Double.parseDouble(f[6]));
            } catch (NumberFormatException e) {
                // not a data row
            }
        }
        return rates;
    }
}
