package io.jfabric.cli.pingpong;

import java.io.PrintStream;
import java.util.Locale;

/**
 * fi_pingpong's result table (show_perf): one header, then one row per size with bytes, iterations,
 * the acknowledged count, total bytes, time, MB/s, microseconds per transfer and millions of transfers
 * per second, in the same columns and units so the two tools' output can be compared line by line.
 */
public final class ResultTable {
    private final PrintStream out;
    private boolean headerPrinted;

    ResultTable(PrintStream out) {
        this.out = out;
    }

    /** One row; {@code xfersPerIter} is 2 for a ping and its pong. Nothing is printed when nothing was sent. */
    void row(long size, long sent, long acked, long elapsedMicros, int xfersPerIter) {
        if (sent == 0) {
            return;
        }
        if (!headerPrinted) {
            out.printf("%-8s%-8s%-9s%-8s%8s %10s%13s%13s%n", "bytes", "#sent", "#ack", "total", "time", "MB/sec",
                    "usec/xfer", "Mxfers/sec");
            headerPrinted = true;
        }
        long bytes = sent * size * xfersPerIter;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%-8s", sizeStr(size)));
        sb.append(String.format("%-8s", cntStr(sent)));
        if (sent == acked) {
            sb.append(String.format("=%-8s", cntStr(acked)));
        } else if (sent < acked) {
            sb.append(String.format("-%-8s", cntStr(acked - sent)));
        } else {
            sb.append(String.format("+%-8s", cntStr(sent - acked)));
        }
        sb.append(String.format("%-8s", sizeStr(bytes)));
        float usecPerXfer = (float) elapsedMicros / sent / xfersPerIter;
        sb.append(String.format(Locale.ROOT, "%8.2fs%10.2f%11.2f%11.2f", elapsedMicros / 1_000_000.0,
                bytes / (1.0 * elapsedMicros), usecPerXfer, 1.0 / usecPerXfer));
        out.println(sb);
        out.flush();
    }

    /** size_str: 1536 → "1.5k", 65536 → "64k", 1048576 → "1m". */
    public static String sizeStr(long size) {
        long base;
        String mag;
        if (size >= 1L << 30) {
            base = 1L << 30;
            mag = "g";
        } else if (size >= 1L << 20) {
            base = 1L << 20;
            mag = "m";
        } else if (size >= 1L << 10) {
            base = 1L << 10;
            mag = "k";
        } else {
            base = 1;
            mag = "";
        }
        long fraction = size / base < 10 ? (size % base) * 10 / base : 0;
        return fraction != 0 ? (size / base) + "." + fraction + mag : (size / base) + mag;
    }

    /** cnt_str: 10000 → "10k". */
    public static String cntStr(long cnt) {
        if (cnt >= 1_000_000_000L) {
            return cnt / 1_000_000_000L + "b";
        } else if (cnt >= 1_000_000L) {
            return cnt / 1_000_000L + "m";
        } else if (cnt >= 1000) {
            return cnt / 1000 + "k";
        }
        return Long.toString(cnt);
    }
}
