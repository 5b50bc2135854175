package io.jfabric.cli.bw;

import io.jfabric.cli.pingpong.ResultTable;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The bandwidth tools' output: a human table on stdout in fabtests' units (bytes, count, MB/sec,
 * usec/xfer, Mxfers/sec) plus latency percentiles, and the same rows as JSON or CSV for scripts
 * ({@code bench/compare}, plots).
 */
final class BenchReport {
    static final String CSV_HEADER = "test,bytes,ops,total_bytes,time_ns,mb_per_sec,mops_per_sec,usec_per_op,"
            + "p50_ns,p90_ns,p99_ns,p999_ns,max_ns";

    private final PrintStream out;
    private final List<BenchRow> rows = new ArrayList<>();
    private boolean headerPrinted;

    BenchReport(PrintStream out) {
        this.out = out;
    }

    void add(BenchRow r) {
        rows.add(r);
        if (!headerPrinted) {
            out.printf("%-20s%-8s%-8s%-8s%9s %10s%11s%12s %9s %9s %9s%n", "test", "bytes", "#ops", "total", "time",
                    "MB/sec", "usec/xfer", "Mxfers/sec", "p50 us", "p99 us", "p99.9 us");
            headerPrinted = true;
        }
        out.printf(Locale.ROOT, "%-20s%-8s%-8s%-8s%8.2fs %10.2f%11.2f%12.3f %9.2f %9.2f %9.2f%n", r.test(),
                ResultTable.sizeStr(r.size()), ResultTable.cntStr(r.ops()), ResultTable.sizeStr(r.bytes()),
                r.elapsedNanos() / 1e9, r.mbPerSec(), r.usecPerOp(), r.mopsPerSec(), r.p50() / 1000.0,
                r.p99() / 1000.0, r.p999() / 1000.0);
        out.flush();
    }

    List<BenchRow> rows() {
        return rows;
    }

    String csv() {
        StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
        for (BenchRow r : rows) {
            sb.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%.3f,%.6f,%.3f,%d,%d,%d,%d,%d%n", r.test(), r.size(),
                    r.ops(), r.bytes(), r.elapsedNanos(), r.mbPerSec(), r.mopsPerSec(), r.usecPerOp(), r.p50(),
                    r.p90(), r.p99(), r.p999(), r.max()));
        }
        return sb.toString();
    }

    String json() {
        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < rows.size(); i++) {
            BenchRow r = rows.get(i);
            sb.append(String.format(Locale.ROOT,
                    "  {\"test\": \"%s\", \"bytes\": %d, \"ops\": %d, \"total_bytes\": %d, \"time_ns\": %d, "
                            + "\"mb_per_sec\": %.3f, \"mops_per_sec\": %.6f, \"usec_per_op\": %.3f, "
                            + "\"latency_ns\": {\"p50\": %d, \"p90\": %d, \"p99\": %d, \"p999\": %d, \"max\": %d}}%s%n",
                    r.test(), r.size(), r.ops(), r.bytes(), r.elapsedNanos(), r.mbPerSec(), r.mopsPerSec(),
                    r.usecPerOp(), r.p50(), r.p90(), r.p99(), r.p999(), r.max(), i + 1 < rows.size() ? "," : ""));
        }
        return sb.append("]\n").toString();
    }

    /** Writes the machine-readable copies asked for; "-" means stdout, after the table. */
    void writeFiles(String jsonTarget, String csvTarget) throws IOException {
        write(jsonTarget, json());
        write(csvTarget, csv());
    }

    private void write(String target, String text) throws IOException {
        if (target == null) {
            return;
        }
        if (target.equals("-")) {
            out.print(text);
            out.flush();
        } else {
            // written beside the target and renamed over it: the two sides of a run given the same file name
            // each leave a whole report, where two truncating writers could leave one's tail behind the other's
            Path path = Path.of(target).toAbsolutePath();
            Path tmp = Files.createTempFile(path.getParent(), path.getFileName().toString(), ".tmp");
            try {
                Files.writeString(tmp, text, StandardCharsets.UTF_8);
                Files.move(tmp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }
}
