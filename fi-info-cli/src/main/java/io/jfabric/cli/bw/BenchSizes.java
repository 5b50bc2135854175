package io.jfabric.cli.bw;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The -S argument of the bandwidth tools: one size with an optional k/m suffix ("4k", "1m"), a comma list,
 * or "all" (every power of two from 1 B to 16 MiB), the range fabtests' {@code -S all} covers.
 */
final class BenchSizes {
    static final long MAX = 16L << 20;
    static final List<Long> DEFAULT = List.of(1L, 64L, 1024L, 4096L, 65536L, 1L << 20);
    static final List<Long> DEFAULT_RATE = List.of(1L, 8L, 64L, 256L);

    private BenchSizes() {
    }

    static List<Long> parse(String spec, boolean rate) {
        if (spec == null) {
            return rate ? DEFAULT_RATE : DEFAULT;
        }
        List<Long> out = new ArrayList<>();
        if (spec.equalsIgnoreCase("all")) {
            for (long s = 1; s <= MAX; s <<= 1) {
                out.add(s);
            }
            return out;
        }
        for (String part : spec.split(",")) {
            out.add(parseOne(part.trim()));
        }
        return out;
    }

    static long parseOne(String text) {
        String t = text.toLowerCase(Locale.ROOT);
        long mult = 1;
        if (t.endsWith("k")) {
            mult = 1024;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            mult = 1024 * 1024;
            t = t.substring(0, t.length() - 1);
        }
        long v;
        try {
            v = Long.parseLong(t) * mult;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-S " + text + ": not a size; use e.g. 64, 4k, 1m, 1,64,4k or all");
        }
        if (v < 1 || v > MAX) {
            throw new IllegalArgumentException("-S " + text + ": sizes run from 1 B to 16 MiB (16m)");
        }
        return v;
    }
}
