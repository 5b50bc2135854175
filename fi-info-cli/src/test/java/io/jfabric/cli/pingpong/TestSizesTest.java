package io.jfabric.cli.pingpong;

import io.jfabric.EndpointType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(10)
class TestSizesTest {
    private static PingPongOptions opts(int size, boolean all) {
        return new PingPongOptions(null, null, EndpointType.MSG, false, 10, 0, size, all, false, 0, 0, null, false, false, 0, null);
    }

    @Test
    void defaultListStopsAtTheTransferLimit() {
        assertEquals(List.of(64L, 256L, 1024L, 4096L, 65536L, 1048576L), TestSizes.of(opts(-1, false), PingPong.MAX_DATA_MSG));
        assertEquals(List.of(64L, 256L, 1024L), TestSizes.of(opts(-1, false), 2000));
    }

    @Test
    void allGoesThroughPowersOfTwoAndHalfSteps() {
        List<Long> s = TestSizes.of(opts(-1, true), PingPong.MAX_DATA_MSG);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 6L, 8L, 12L), s.subList(0, 8));
        assertEquals(PingPong.MAX_DATA_MSG, (long) s.getLast());
        assertEquals(4L << 20, (long) s.get(s.size() - 2));
    }

    @Test
    void oneSizeOrNoneWhenItExceedsTheLimit() {
        assertEquals(List.of(4096L), TestSizes.of(opts(4096, false), 4096));
        assertEquals(List.of(), TestSizes.of(opts(4097, false), 4096));
    }
}
