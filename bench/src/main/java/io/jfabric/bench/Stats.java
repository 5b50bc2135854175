package io.jfabric.bench;

import java.util.Arrays;
import java.util.List;

/** Medians, as bench/compare reports them (the targets are medians of one run). */
public final class Stats {
    private Stats() {
    }

    public static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
