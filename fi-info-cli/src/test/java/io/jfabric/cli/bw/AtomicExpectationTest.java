package io.jfabric.cli.bw;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jfabric atomic -c}'s checker: the values it expects, worked out by hand here from the starting element,
 * operand and operation count, and its verdict on elements that are wrong by one.
 */
@Timeout(60)
class AtomicExpectationTest {
    private static final int W = AtomicExpectation.WRITE;
    private static final int F = AtomicExpectation.FETCH;
    private static final int C = AtomicExpectation.COMPARE;

    private static byte[] u64(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(v).array();
    }

    private static byte[] i8(int v) {
        return new byte[] {(byte) v};
    }

    private static byte[] i32(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
    }

    private static byte[] f32(float... v) {
        ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.nativeOrder());
        for (float x : v) {
            b.putFloat(x);
        }
        return b.array();
    }

    private static byte[] f64(double... v) {
        ByteBuffer b = ByteBuffer.allocate(8 * v.length).order(ByteOrder.nativeOrder());
        for (double x : v) {
            b.putDouble(x);
        }
        return b.array();
    }

    @Test
    void sumCountsEveryOperation() {
        // starts at 10, adds 1 per operation: 10 + 1000; the last of a window of 4 fetched 1006..1009
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.SUM, AtomicDatatype.UINT64, 1000, 4, u64(1010), null));
        assertNull(AtomicExpectation.mismatch(F, AtomicOp.SUM, AtomicDatatype.UINT64, 1000, 4, u64(1010), u64(1009)));
        assertNull(AtomicExpectation.mismatch(F, AtomicOp.SUM, AtomicDatatype.UINT64, 1000, 4, u64(1010), u64(1006)));
        // 8-bit elements wrap: (10 + 300) mod 256
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.SUM, AtomicDatatype.INT8, 300, 1, i8(54), null));
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.SUM, AtomicDatatype.DOUBLE, 1000, 1, f64(1010), null));
    }

    @Test
    void aWrongTargetIsNamedWithExpectedAndFound() {
        String miss = AtomicExpectation.mismatch(W, AtomicOp.SUM, AtomicDatatype.UINT64, 1000, 4, u64(1009), null);
        assertNotNull(miss, "one operation lost");
        assertTrue(miss.contains("sum on FI_UINT64") && miss.contains("holds 1009") && miss.contains("expected 1010"),
                miss);
        miss = AtomicExpectation.mismatch(C, AtomicOp.CSWAP, AtomicDatatype.INT32, 5, 1, i32(42), i32(9));
        assertNotNull(miss, "a compare-swap that never swapped");
        assertTrue(miss.contains("compare_cswap on FI_INT32") && miss.contains("expected 9"), miss);
    }

    @Test
    void aWrongFetchIsNamed() {
        // 1005 is the element before the fifth-last operation, outside a window of 4
        String miss = AtomicExpectation.mismatch(F, AtomicOp.SUM, AtomicDatatype.UINT64, 1000, 4, u64(1010), u64(1005));
        assertNotNull(miss);
        assertTrue(miss.contains("fetch_sum on FI_UINT64") && miss.contains("1005") && miss.contains("1009"), miss);
        // nothing written into the result buffer (its fill pattern)
        byte[] untouched = new byte[8];
        java.util.Arrays.fill(untouched, (byte) 0xa5);
        assertNotNull(AtomicExpectation.mismatch(F, AtomicOp.ATOMIC_READ, AtomicDatatype.UINT64, 10, 2, u64(42),
                untouched));
        assertNull(AtomicExpectation.mismatch(F, AtomicOp.ATOMIC_READ, AtomicDatatype.UINT64, 10, 2, u64(42),
                u64(42)));
    }

    @Test
    void productByMinusOneAndXorFlipWithEachOperation() {
        // 3 * (-1)^5; for unsigned bytes -1 is 255, and 3 * 255^5 mod 256 = 256 - 3
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.PROD, AtomicDatatype.INT32, 5, 1, i32(-3), null));
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.PROD, AtomicDatatype.UINT8, 5, 1, i8(253), null));
        assertNotNull(AtomicExpectation.mismatch(W, AtomicOp.PROD, AtomicDatatype.INT32, 6, 1, i32(-3), null));
        // complex: (3 + 2i) * (-1 + 0i), three times
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.PROD, AtomicDatatype.FLOAT_COMPLEX, 3, 1, f32(-3, -2),
                null));
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.SUM, AtomicDatatype.DOUBLE_COMPLEX, 3, 1, f64(13, 2),
                null));
        // logical xor of 1 from 0: 1, 0, 1; bitwise xor of 0x3c from 0x0f: 0x33, 0x0f, 0x33
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.LXOR, AtomicDatatype.UINT64, 3, 1, u64(1), null));
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.BXOR, AtomicDatatype.UINT64, 3, 1, u64(0x33), null));
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.BXOR, AtomicDatatype.UINT64, 4, 1, u64(0x0f), null));
    }

    @Test
    void swapsAndMaskedSwap() {
        // 0xf0 with bits 0x3c taken from 0x0f: 0xcc
        assertNull(AtomicExpectation.mismatch(C, AtomicOp.MSWAP, AtomicDatatype.UINT8, 7, 1, i8(0xcc), i8(0xcc)));
        // 9, compared with 20: 20 >= 9 swaps 42 in; then 20 >= 42 does not
        assertNull(AtomicExpectation.mismatch(C, AtomicOp.CSWAP_GE, AtomicDatatype.DOUBLE, 2, 1, f64(42), f64(42)));
        assertNull(AtomicExpectation.mismatch(C, AtomicOp.CSWAP_GE, AtomicDatatype.DOUBLE, 1, 1, f64(42), f64(9)));
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.MIN, AtomicDatatype.INT16, 3, 1,
                ByteBuffer.allocate(2).order(ByteOrder.nativeOrder()).putShort((short) 7).array(), null));
    }

    @Test
    void floatSumStopsWhereOneIsBelowHalfAnUlp() {
        // from 10, float addition of 1 is exact up to 2^24 and then rounds back to 2^24
        assertNull(AtomicExpectation.mismatch(W, AtomicOp.SUM, AtomicDatatype.FLOAT, (1 << 24) + 100, 1,
                f32(16_777_216f), null));
    }

    @Test
    void elementsAreTheNumbersInTheDatatype() {
        assertEquals(-1, MemorySegment.ofArray(AtomicExpectation.operand(AtomicOp.PROD, AtomicDatatype.INT64))
                .get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals((byte) 0xff, AtomicExpectation.operand(AtomicOp.PROD, AtomicDatatype.UINT8)[0]);
        MemorySegment c = MemorySegment.ofArray(AtomicExpectation.start(AtomicOp.SUM, AtomicDatatype.DOUBLE_COMPLEX));
        assertEquals(10.0, c.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
        assertEquals(2.0, c.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 8));
        assertFalse(AtomicExpectation.checks(AtomicDatatype.LONG_DOUBLE));
    }
}
