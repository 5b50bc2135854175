package io.jfabric.bench;

import java.util.Locale;

/**
 * One row of fi_pingpong's table (the same in jfabric pingpong's): size, MB/sec and usec/xfer, parsed from
 * "bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec".
 */
record PingPongResult(long size, double mbPerSec, double usecPerXfer) {

    /** The first data row of a fi_pingpong table in {@code output}, or null when there is none. */
    static PingPongResult parse(String output) {
        for (String line : output.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || f[0].equals("bytes")) {
                continue;
            }
            try {
                long size = parseSize(f[0]);
                double mbps = Double.parseDouble(f[f.length - 3]);
                double usec = Double.parseDouble(f[f.length - 2]);
                return new PingPongResult(size, mbps, usec);
            } catch (NumberFormatException e) {
                // not a data row
            }
        }
        return null;
    }

    /** size_str's inverse: "64", "1.5k", "4k", "1m". */
    static long parseSize(String s) {
        String t = s.toLowerCase(Locale.ROOT);
        double mult = 1;
        char last = t.charAt(t.length() - 1);
        if (last == 'k' || last == 'm' || last == 'g') {
            mult = last == 'k' ? 1024 : last == 'm' ? 1 << 20 : 1 << 30;
            t = t.substring(0, t.length() - 1);
        }
        return Math.round(Double.parseDouble(t) * mult);
    }
}
