package io.jfabric.cli.pingpong;

import java.util.ArrayList;
import java.util.List;

/** fi_pingpong's generate_test_sizes: -S n, the default list, or -S all (0, 1, 2, 3, 4, 6, 8, 12 ...). */
final class TestSizes {
    private static final long[] DEFAULTS = {64, 256, 1024, 4096, 65536, 1048576};

    private TestSizes() {
    }

    static List<Long> of(PingPongOptions o, long txSize) {
        List<Long> sizes = new ArrayList<>();
        if (o.sizeGiven()) {
            if (o.size() <= txSize) {
                sizes.add((long) o.size());
            }
        } else if (!o.allSizes()) {
            for (long d : DEFAULTS) {
                if (d > txSize) {
                    break;
                }
                sizes.add(d);
            }
        } else {
            for (int i = 0; ; i++) {
                long powerOfTwo = i == 0 ? 0 : 1L << i;
                long halfUp = i == 0 ? 1 : powerOfTwo + powerOfTwo / 2;
                if (powerOfTwo > txSize) {
                    break;
                }
                sizes.add(powerOfTwo);
                if (halfUp > txSize) {
                    break;
                }
                sizes.add(halfUp);
            }
        }
        return sizes;
    }
}
