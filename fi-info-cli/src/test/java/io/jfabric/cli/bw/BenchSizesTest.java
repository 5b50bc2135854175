package io.jfabric.cli.bw;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The -S grammar of bw and rma-bw. */
class BenchSizesTest {
    @Test
    void allIsEveryPowerOfTwoFromOneByteTo16MiB() {
        List<Long> all = BenchSizes.parse("all", false);
        assertEquals(25, all.size());
        assertEquals(1L, all.getFirst());
        assertEquals(16L << 20, all.getLast());
    }

    @Test
    void suffixesListsAndDefaults() {
        assertEquals(List.of(64L, 4096L, 1L << 20), BenchSizes.parse("64,4k,1m", false));
        assertEquals(BenchSizes.DEFAULT, BenchSizes.parse(null, false));
        assertEquals(BenchSizes.DEFAULT_RATE, BenchSizes.parse(null, true));
    }

    @Test
    void outOfRangeAndGarbageAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> BenchSizes.parse("0", false));
        assertThrows(IllegalArgumentException.class, () -> BenchSizes.parse("17m", false));
        assertThrows(IllegalArgumentException.class, () -> BenchSizes.parse("lots", false));
    }
}
