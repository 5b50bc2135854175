package io.jfabric.provider.tcp;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.MrAttr;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.util.MrMap;
import io.jfabric.util.UtilMemoryRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The RMA target's placement of remote ranges in regions of several segments (fi_mr_regv). */
@Timeout(30)
class TcpRmaTargetTest {
    private static final WireOrder O = WireOrder.HOST;

    private final MrMap map = new MrMap(0, 8);
    private final TcpRmaTarget target = new TcpRmaTarget(map);
    private final ViewCache cache = new ViewCache();
    private final ByteBuffer[] dst = new ByteBuffer[DataHeader.IOV_LIMIT];
    private final SegmentView[] slots = new SegmentView[DataHeader.IOV_LIMIT];

    TcpRmaTargetTest() {
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new SegmentView(cache);
        }
    }

    private static MemorySegment writeHeader(Arena a, long key, long... addrLen) {
        MemorySegment h = a.allocate(DataHeader.MAX_HDR_SIZE);
        int n = addrLen.length / 2;
        long total = 0;
        for (int i = 0; i < n; i++) {
            total += addrLen[2 * i + 1];
        }
        DataHeader.encodeRma(h, O, DataHeader.OP_WRITE, 0, 0, n, total);
        for (int i = 0; i < n; i++) {
            DataHeader.putRmaIov(h, O, i, addrLen[2 * i], addrLen[2 * i + 1], key);
        }
        return h;
    }

    @Test
    void aRangeAcrossTwoSegmentsGetsOneViewInEach() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment one = a.allocate(100);
            MemorySegment two = a.allocate(60);
            UtilMemoryRegion mr = map.register(new MrAttr(Access.REMOTE_WRITE, 5, one, two));
            int views = target.writeTargets(writeHeader(a, mr.key(), 90, 30), O, dst, slots);
            assertEquals(2, views, "10 bytes at the end of the first segment, 20 at the start of the second");
            assertEquals(10, dst[0].remaining());
            assertEquals(20, dst[1].remaining());
            for (int i = 0; i < views; i++) {
                while (dst[i].hasRemaining()) {
                    dst[i].put((byte) 7);
                }
            }
            assertEquals(7, one.get(ValueLayout.JAVA_BYTE, 99));
            assertEquals(0, one.get(ValueLayout.JAVA_BYTE, 89), "nothing before the range");
            assertEquals(7, two.get(ValueLayout.JAVA_BYTE, 19));
            assertEquals(0, two.get(ValueLayout.JAVA_BYTE, 20), "nothing after the range");
        }
    }

    @Test
    void rangesThatNeedMoreViewsThanAnOperationHasAreRefused() {
        try (Arena a = Arena.ofConfined()) {
            UtilMemoryRegion mr = map.register(new MrAttr(Access.REMOTE_WRITE, 6, a.allocate(100), a.allocate(100)));
            assertEquals(4, target.writeTargets(writeHeader(a, mr.key(), 90, 20, 95, 10), O, dst, slots),
                    "two ranges across the boundary fill the four views");
            assertEquals(-1, target.writeTargets(writeHeader(a, mr.key(), 90, 20, 95, 10, 99, 2), O, dst, slots));
            assertEquals(Errno.EINVAL, target.lastError(), target.lastReason());
        }
    }

    @Test
    void theConcatenationsEndAndAccessAreChecked() {
        try (Arena a = Arena.ofConfined()) {
            UtilMemoryRegion mr = map.register(new MrAttr(Access.REMOTE_READ, 7, a.allocate(100), a.allocate(60)));
            assertEquals(-1, target.writeTargets(writeHeader(a, mr.key(), 0, 10), O, dst, slots));
            assertEquals(Errno.EACCES, target.lastError(), "a read-only region refuses writes");
            UtilMemoryRegion rw = map.register(new MrAttr(Access.REMOTE_WRITE, 8, a.allocate(100), a.allocate(60)));
            assertEquals(-1, target.writeTargets(writeHeader(a, rw.key(), 150, 11), O, dst, slots));
            assertEquals(Errno.EINVAL, target.lastError(), "one byte past the second segment");
            assertEquals(1, target.writeTargets(writeHeader(a, rw.key(), 150, 10), O, dst, slots),
                    "up to the last byte, inside the second segment");
        }
    }
}
