package io.jfabric.util;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The edges the conformance suite's small values do not reach: widths, signedness, NaN, neighbouring bytes. */
@Timeout(10)
class AtomicUpdateTest {

    @Test
    void subWordElementsChangeOnlyTheirOwnBytes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment t = arena.allocate(8, 8);
            t.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            MemorySegment src = arena.allocate(2);
            src.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x01);
            MemorySegment res = arena.allocate(2);
            AtomicUpdate.apply(AtomicDatatype.UINT8, AtomicOp.SUM, t, 3, src, 0, null, 0, res, 0, 1);
            assertEquals(t.get(ValueLayout.JAVA_BYTE, 3), (byte) 0x56, "byte 3 (0x55) plus 1");
            assertEquals((byte) 0x55, res.get(ValueLayout.JAVA_BYTE, 0), "previous byte 3");
            t.set(ValueLayout.JAVA_BYTE, 3, (byte) 0x55);
            assertEquals(0x1122334455667788L, t.get(ValueLayout.JAVA_LONG, 0), "no other byte changed");
            src.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) 0x0101);
            AtomicUpdate.apply(AtomicDatatype.UINT16, AtomicOp.BXOR, t, 6, src, 0, null, 0, null, 0, 1);
            assertEquals(0x1023334455667788L, t.get(ValueLayout.JAVA_LONG, 0), "the top 16 bits xor 0x0101");
        }
    }

    @Test
    void widthsWrapAndSignednessDecidesMinMax() {
        assertEquals(0x80, AtomicUpdate.compute(AtomicDatatype.INT8, AtomicOp.SUM, 0x7f, 1, 0), "127 + 1 wraps");
        assertEquals(0x00, AtomicUpdate.compute(AtomicDatatype.UINT8, AtomicOp.SUM, 0xff, 1, 0), "255 + 1 wraps");
        assertEquals(0xff, AtomicUpdate.compute(AtomicDatatype.INT8, AtomicOp.MIN, 0x01, 0xff, 0), "-1 < 1 signed");
        assertEquals(0x01, AtomicUpdate.compute(AtomicDatatype.UINT8, AtomicOp.MIN, 0x01, 0xff, 0), "1 < 255");
        assertEquals(-1L, AtomicUpdate.compute(AtomicDatatype.UINT64, AtomicOp.MAX, 5, -1L, 0), "2^64-1 > 5");
        assertEquals(5L, AtomicUpdate.compute(AtomicDatatype.INT64, AtomicOp.MAX, 5, -1L, 0), "-1 < 5");
        assertEquals(-1L, AtomicUpdate.compute(AtomicDatatype.UINT64, AtomicOp.CSWAP_GT, -1L, 9, 1),
                "1 > 2^64-1 is false: no swap");
        assertEquals(9L, AtomicUpdate.compute(AtomicDatatype.INT64, AtomicOp.CSWAP_GT, -1L, 9, 1), "1 > -1: swap");
    }

    @Test
    void nanComparesFalseAsInC() {
        long nan = Double.doubleToRawLongBits(Double.NaN);
        long two = Double.doubleToRawLongBits(2.0);
        assertEquals(nan, AtomicUpdate.compute(AtomicDatatype.DOUBLE, AtomicOp.MIN, nan, two, 0), "NaN > 2 is false");
        assertEquals(nan, AtomicUpdate.compute(AtomicDatatype.DOUBLE, AtomicOp.CSWAP, nan, two, nan), "NaN != NaN");
        assertEquals(Double.doubleToRawLongBits(1.0),
                AtomicUpdate.compute(AtomicDatatype.DOUBLE, AtomicOp.LOR, nan, 0, 0), "NaN is true");
    }

    @Test
    void theTableFollowsOfiAtomicValid() {
        assertTrue(AtomicUpdate.supported(AtomicRequest.FETCH, AtomicDatatype.DOUBLE, AtomicOp.ATOMIC_READ));
        assertFalse(AtomicUpdate.supported(AtomicRequest.WRITE, AtomicDatatype.INT32, AtomicOp.ATOMIC_READ));
        assertFalse(AtomicUpdate.supported(AtomicRequest.WRITE, AtomicDatatype.FLOAT, AtomicOp.BOR));
        assertFalse(AtomicUpdate.supported(AtomicRequest.COMPARE, AtomicDatatype.DOUBLE_COMPLEX, AtomicOp.CSWAP_LT));
        assertTrue(AtomicUpdate.supported(AtomicRequest.COMPARE, AtomicDatatype.DOUBLE_COMPLEX, AtomicOp.CSWAP_NE));
        assertFalse(AtomicUpdate.supported(AtomicRequest.COMPARE, AtomicDatatype.FLOAT, AtomicOp.MSWAP));
        assertFalse(AtomicUpdate.supported(AtomicRequest.WRITE, AtomicDatatype.LONG_DOUBLE, AtomicOp.SUM));
    }
}
