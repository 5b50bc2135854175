package io.jfabric.provider.tcp.wire;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class DataHeaderTest {
    private static final long MAX = 1L << 30;
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment h = arena.allocate(DataHeader.MAX_HDR_SIZE);
    private final WireOrder host = WireOrder.HOST;

    private String hex(int n) {
        return HexFormat.of().formatHex(h.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
    }

    private void load(String hexBytes) {
        byte[] b = HexFormat.of().parseHex(hexBytes.replace(" ", ""));
        h.fill((byte) 0);
        MemorySegment.copy(b, 0, h, ValueLayout.JAVA_BYTE, 0, b.length);
    }

    @Test
    void msgHeaderMatchesCapture() {
        assumeLittleEndianHost();
        assertEquals(16, DataHeader.encodeMsg(h, host, 0, 0, 0, 64));
        assertEquals("0300000000001000" + "5000000000000000", hex(16));
        assertEquals(16, DataHeader.decodeBase(h, host, MAX));
        assertEquals(64, DataHeader.payloadLength(h, host));
    }

    @Test
    void deliveryCompleteFinAndAckMatchCapture() {
        assumeLittleEndianHost();
        DataHeader.encodeMsg(h, host, DataHeader.FLAG_DELIVERY_COMPLETE, 0, 0, 4);
        assertEquals("0300040000001000" + "1400000000000000", hex(16));
        assertTrue(DataHeader.wantsAck(h, host));
        DataHeader.encodeAck(h, host);
        assertEquals("0300000002001000" + "1000000000000000", hex(16));
        assertEquals(16, DataHeader.decodeBase(h, host, MAX));
        assertTrue(DataHeader.isAck(h));
        assertFalse(DataHeader.wantsAck(h, host));
    }

    @Test
    void ackWithStaleTaggedAndCqDataFlagsIsAPlainAck() {
        // a peer may reuse the header of the acked frame and leave its flags in place; the ACK is still 16 bytes
        DataHeader.encodeMsg(h, host, DataHeader.FLAG_TAGGED | DataHeader.FLAG_REMOTE_CQ_DATA
                | DataHeader.FLAG_DELIVERY_COMPLETE, 0x1111, 0x2222, 8);
        assertTrue(DataHeader.wantsAck(h, host));
        DataHeader.encodeAck(h, host);
        assertEquals(0, DataHeader.flags(h, host), "our ACK carries no flags");
        h.set(host.u16, 2, (short) (DataHeader.FLAG_TAGGED | DataHeader.FLAG_REMOTE_CQ_DATA
                | DataHeader.FLAG_DELIVERY_COMPLETE));
        h.set(host.u64, 16, 0x7777L); // bytes past the ACK belong to the next frame
        assertEquals(DataHeader.BASE_SIZE, DataHeader.decodeBase(h, host, MAX));
        assertEquals(WireStatus.OK, DataHeader.decodeExtensions(h, host, MAX));
        assertTrue(DataHeader.isAck(h));
        assertFalse(DataHeader.wantsAck(h, host), "an ACK is never ACKed");
        assertFalse(DataHeader.hasCqData(h, host), "an ACK has no cq_data extension");
        assertEquals(0, DataHeader.cqData(h, host));
        assertEquals(0, DataHeader.tag(h, host), "an ACK has no tag extension");
        assertEquals(0, DataHeader.payloadLength(h, host));
        h.set(host.u64, 8, 24L); // an ACK that claims the 8-byte extension is malformed, not a cq_data carrier
        assertEquals(WireStatus.BAD_ACK, DataHeader.decodeBase(h, host, MAX));
    }

    @Test
    void capturedTaggedEagerAndReadRequestDecode() {
        assumeLittleEndianHost();
        load("0300800000001800 5800000000000000 d204000000000000");
        assertEquals(24, DataHeader.decodeBase(h, host, MAX));
        assertEquals(0x4d2, DataHeader.tag(h, host));
        assertEquals(64, DataHeader.payloadLength(h, host));

        load("0302000000012800 2800000000000000 0000000000000000 0000010000000000 0000008000000000");
        assertEquals(40, DataHeader.decodeBase(h, host, MAX));
        assertEquals(0, DataHeader.decodeExtensions(h, host, MAX));
        assertEquals(1, DataHeader.rmaIovCount(h));
        assertEquals(65536, DataHeader.rmaLen(h, host, 0));
        assertEquals(0x80000000L, DataHeader.rmaKey(h, host, 0));
    }

    @Test
    void staleRmaIovCountIsIgnoredOnOpMsg() {
        assumeLittleEndianHost();
        load("0300000000011000 5000000000000000");
        assertEquals(16, DataHeader.decodeBase(h, host, MAX));
    }

    @Test
    void cqDataAndTagExtensionsRoundTrip() {
        int flags = DataHeader.FLAG_REMOTE_CQ_DATA | DataHeader.FLAG_TAGGED;
        assertEquals(32, DataHeader.encodeMsg(h, host, flags, 0x1122334455667788L, 0xabcdefL, 10));
        assertEquals(32, DataHeader.decodeBase(h, host, MAX));
        assertEquals(0x1122334455667788L, DataHeader.cqData(h, host));
        assertEquals(0xabcdefL, DataHeader.tag(h, host));
        assertEquals(42, DataHeader.size(h, host));
    }

    @Test
    void writeWithCqDataAndFourIovsUsesMaxHeader() {
        int hdr = DataHeader.encodeRma(h, host, DataHeader.OP_WRITE, DataHeader.FLAG_REMOTE_CQ_DATA, 99L, 4, 400);
        assertEquals(DataHeader.MAX_HDR_SIZE, hdr);
        for (int i = 0; i < 4; i++) {
            DataHeader.putRmaIov(h, host, i, 1000L * i, 100, 7 + i);
        }
        assertEquals(120, DataHeader.decodeBase(h, host, MAX));
        assertEquals(0, DataHeader.decodeExtensions(h, host, MAX));
        assertEquals(99L, DataHeader.cqData(h, host));
        assertEquals(24, DataHeader.rmaIovOffset(h, host));
        assertEquals(3000L, DataHeader.rmaAddr(h, host, 3));
        assertEquals(10, DataHeader.rmaKey(h, host, 3));
        DataHeader.putRmaIov(h, host, 3, 3000L, 101, 10);
        assertEquals(WireStatus.RMA_LENGTH_MISMATCH, DataHeader.decodeExtensions(h, host, MAX));
    }

    @Test
    void readRequestNeverCarriesCqDataOrPayload() {
        assertEquals(16 + 48, DataHeader.encodeRma(h, host, DataHeader.OP_READ_REQ, DataHeader.FLAG_REMOTE_CQ_DATA, 5, 2, 999));
        assertEquals(64, DataHeader.decodeBase(h, host, MAX));
        assertEquals(64, DataHeader.size(h, host));
        assertFalse(DataHeader.hasCqData(h, host));
        assertEquals(16, DataHeader.encodeReadRsp(h, host, 1 << 20));
        assertEquals(16, DataHeader.decodeBase(h, host, MAX));
        assertEquals(1 << 20, DataHeader.payloadLength(h, host));
    }

    @Test
    void networkOrderSwapsOnlyMultiByteFields() {
        WireOrder net = WireOrder.NETWORK;
        DataHeader.encodeMsg(h, net, DataHeader.FLAG_REMOTE_CQ_DATA | DataHeader.FLAG_DELIVERY_COMPLETE, 0x0102030405060708L, 0, 3);
        assertEquals("0300000500001800" + "000000000000001b" + "0102030405060708", hex(24));
        assertEquals(24, DataHeader.decodeBase(h, net, MAX));
        assertEquals(0x0102030405060708L, DataHeader.cqData(h, net));
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
            // read with the wrong order the frame is garbage and must be rejected, not trusted
            assertTrue(DataHeader.decodeBase(h, host, MAX) < 0);
        }
    }

    @Test
    void rejectsMalformedBaseHeaders() {
        DataHeader.encodeMsg(h, host, 0, 0, 0, 8);
        h.set(ValueLayout.JAVA_BYTE, 0, (byte) 2);
        assertEquals(WireStatus.BAD_VERSION, DataHeader.decodeBase(h, host, MAX));

        DataHeader.encodeMsg(h, host, 0, 0, 0, 8);
        h.set(ValueLayout.JAVA_BYTE, 1, (byte) 9);
        assertEquals(WireStatus.UNKNOWN_OP, DataHeader.decodeBase(h, host, MAX));
        h.set(ValueLayout.JAVA_BYTE, 1, (byte) DataHeader.OP_TAGGED);
        assertEquals(WireStatus.UNSUPPORTED_OP, DataHeader.decodeBase(h, host, MAX));

        DataHeader.encodeMsg(h, host, 0, 0, 0, 8);
        h.set(ValueLayout.JAVA_BYTE, 6, (byte) 200);
        assertEquals(WireStatus.BAD_HDR_SIZE, DataHeader.decodeBase(h, host, MAX));
        h.set(ValueLayout.JAVA_BYTE, 6, (byte) 8);
        assertEquals(WireStatus.BAD_HDR_SIZE, DataHeader.decodeBase(h, host, MAX));
        h.set(ValueLayout.JAVA_BYTE, 6, (byte) 20);
        assertEquals(WireStatus.BAD_HDR_SIZE, DataHeader.decodeBase(h, host, MAX));
        h.set(ValueLayout.JAVA_BYTE, 6, (byte) 24); // no flag announces an extension
        assertEquals(WireStatus.HDR_SIZE_MISMATCH, DataHeader.decodeBase(h, host, MAX));

        DataHeader.encodeMsg(h, host, 0, 0, 0, 8);
        h.set(host.u64, 8, 15L);
        assertEquals(WireStatus.SIZE_BELOW_HDR, DataHeader.decodeBase(h, host, MAX));
        h.set(host.u64, 8, -1L); // 2^64-1: the unsigned size must not wrap into a small payload
        assertEquals(WireStatus.OVERSIZED, DataHeader.decodeBase(h, host, MAX));
        h.set(host.u64, 8, 16L + MAX + 1);
        assertEquals(WireStatus.OVERSIZED, DataHeader.decodeBase(h, host, MAX));
        assertEquals(90, WireStatus.errno(WireStatus.OVERSIZED));

        DataHeader.encodeAck(h, host);
        h.set(host.u64, 8, 17L);
        assertEquals(WireStatus.BAD_ACK, DataHeader.decodeBase(h, host, MAX));
        DataHeader.encodeMsg(h, host, 0, 0, 0, 0);
        h.set(ValueLayout.JAVA_BYTE, 4, (byte) 3);
        assertEquals(WireStatus.BAD_OP_DATA, DataHeader.decodeBase(h, host, MAX));

        DataHeader.encodeRma(h, host, DataHeader.OP_WRITE, 0, 0, 1, 8);
        h.set(ValueLayout.JAVA_BYTE, 5, (byte) 5);
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT, DataHeader.decodeBase(h, host, MAX));

        DataHeader.encodeRma(h, host, DataHeader.OP_READ_REQ, 0, 0, 1, 0);
        h.set(host.u64, 8, 41L);
        assertEquals(WireStatus.UNEXPECTED_PAYLOAD, DataHeader.decodeBase(h, host, MAX));
        assertEquals(WireStatus.BUFFER_TOO_SMALL, DataHeader.decodeBase(h.asSlice(0, 15), host, MAX));
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT, DataHeader.encodeRma(h, host, DataHeader.OP_WRITE, 0, 0, 5, 0));
    }

    @Test
    void sameHostMessageNamesItsBuffersAndCarriesNoPayload() {
        MemorySegment a = arena.allocate(100);
        MemorySegment b = arena.allocate(50);
        int flags = DataHeader.FLAG_REMOTE_CQ_DATA | DataHeader.FLAG_TAGGED;
        int hl = DataHeader.encodeSameHostMsg(h, host, flags, 7, 9, new MemorySegment[] {a, b}, 2);
        assertEquals(16 + 8 + 8 + 2 * 24, hl);
        assertEquals(hl, DataHeader.decodeBase(h, host, MAX));
        assertEquals(WireStatus.OK, DataHeader.decodeExtensions(h, host, MAX));
        assertTrue(DataHeader.isSameHost(h, host));
        assertTrue(DataHeader.wantsAck(h, host), "the send completes on the receiver's ACK");
        assertEquals(0, DataHeader.payloadLength(h, host));
        assertEquals(150, DataHeader.sameHostLength(h, host));
        assertEquals(b.address(), DataHeader.sameHostAddr(h, host, 1));
        assertEquals(7, DataHeader.cqData(h, host));
        assertEquals(9, DataHeader.tag(h, host));
        assertEquals(WireStatus.OVERSIZED, DataHeader.decodeExtensions(h, host, 149));

        h.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, hl + 5L); // a payload after it
        assertEquals(WireStatus.UNEXPECTED_PAYLOAD, DataHeader.decodeBase(h, host, MAX));
        DataHeader.encodeSameHostMsg(h, host, 0, 0, 0, new MemorySegment[] {a}, 1);
        h.set(ValueLayout.JAVA_BYTE, 5, (byte) 0); // no buffers named
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT, DataHeader.decodeBase(h, host, MAX));
        h.set(ValueLayout.JAVA_BYTE, 5, (byte) 5);
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT, DataHeader.decodeBase(h, host, MAX));
    }

    @Test
    void sameHostReadResponseNamesTheTargetRangesAndCarriesNoPayload() {
        int hl = DataHeader.encodeSameHostReadRsp(h, host, 2);
        DataHeader.putSameHostIov(h, host, 0, 0x1000, 100);
        DataHeader.putSameHostIov(h, host, 1, 0x9000, 28);
        assertEquals(16 + 2 * 24, hl);
        assertEquals(hl, DataHeader.decodeBase(h, host, MAX));
        assertEquals(WireStatus.OK, DataHeader.decodeExtensions(h, host, MAX));
        assertEquals(DataHeader.OP_READ_RSP, DataHeader.op(h));
        assertTrue(DataHeader.isSameHost(h, host));
        assertFalse(DataHeader.wantsAck(h, host), "a read completes at the initiator once copied");
        assertEquals(0, DataHeader.payloadLength(h, host));
        assertEquals(128, DataHeader.sameHostLength(h, host));
        assertEquals(0x9000, DataHeader.sameHostAddr(h, host, 1));
        assertEquals(WireStatus.OVERSIZED, DataHeader.decodeExtensions(h, host, 127));

        h.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, hl + 8L); // a payload after it
        assertEquals(WireStatus.UNEXPECTED_PAYLOAD, DataHeader.decodeBase(h, host, MAX));
        DataHeader.encodeSameHostReadRsp(h, host, 1);
        h.set(ValueLayout.JAVA_BYTE, 5, (byte) 0); // no range named
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT, DataHeader.decodeBase(h, host, MAX));
        DataHeader.encodeReadRsp(h, host, 4096); // libfabric's read response is unchanged
        assertEquals(16, DataHeader.decodeBase(h, host, MAX));
        assertFalse(DataHeader.isSameHost(h, host));
    }

    /**
     * Encodes a same-host write of {@code lens.length} target ranges (at 0x1000 * (i + 1), keys 0x10 + i) from
     * {@code sources.length} source ranges (at 0x7000 + 0x1000 * i).
     */
    private int sameHostWrite(int flags, long cqData, long[] sources, long... lens) {
        int hl = DataHeader.encodeSameHostWrite(h, host, flags | DataHeader.FLAG_DELIVERY_COMPLETE, cqData,
                lens.length, sources.length);
        for (int i = 0; i < lens.length; i++) {
            DataHeader.putRmaIov(h, host, i, 0x1000L * (i + 1), lens[i], 0x10 + i);
        }
        for (int i = 0; i < sources.length; i++) {
            DataHeader.putSameHostIov(h, host, i, 0x7000 + 0x1000L * i, sources[i]);
        }
        return hl;
    }

    private static long[] sources(long... lens) {
        return lens;
    }

    @Test
    void sameHostWriteNamesItsTargetsThenItsSourcesAndCarriesNoPayload() {
        int hl = sameHostWrite(DataHeader.FLAG_REMOTE_CQ_DATA, 0xD, sources(300), 100, 200);
        assertEquals(16 + 8 + 2 * 24 + 24, hl);
        assertEquals(hl, DataHeader.decodeBase(h, host, MAX));
        assertEquals(WireStatus.OK, DataHeader.decodeExtensions(h, host, MAX));
        assertTrue(DataHeader.isSameHostWrite(h, host));
        assertFalse(DataHeader.isSameHost(h, host), "a write's ranges are the target's, not the data's");
        assertTrue(DataHeader.wantsAck(h, host), "the write completes on the target's ACK");
        assertEquals(0, DataHeader.payloadLength(h, host));
        assertEquals(0xD, DataHeader.cqData(h, host));
        assertEquals(0x2000, DataHeader.rmaAddr(h, host, 1));
        assertEquals(0x11, DataHeader.rmaKey(h, host, 1));
        assertEquals(1, DataHeader.sameHostCount(h, host));
        assertEquals(0x7000, DataHeader.sameHostAddr(h, host, 0));
        assertEquals(300, DataHeader.sameHostLen(h, host, 0));
        assertEquals(WireStatus.OVERSIZED, DataHeader.decodeExtensions(h, host, 299));

        hl = sameHostWrite(0, 0, sources(50, 150, 100), 300); // a gather: three sources into one range
        assertEquals(16 + 4 * 24, hl);
        assertEquals(hl, DataHeader.decodeBase(h, host, MAX));
        assertEquals(WireStatus.OK, DataHeader.decodeExtensions(h, host, MAX));
        assertEquals(3, DataHeader.sameHostCount(h, host));
        assertEquals(300, DataHeader.sameHostLength(h, host));
        assertEquals(0x9000, DataHeader.sameHostAddr(h, host, 2));
        assertEquals(0x1000, DataHeader.rmaAddr(h, host, 0));

        hl = sameHostWrite(DataHeader.FLAG_REMOTE_CQ_DATA, 1, sources(2, 2), 1, 3); // the most that fits in 120
        assertEquals(DataHeader.MAX_HDR_SIZE, hl);
        assertEquals(4, DataHeader.SAME_HOST_WRITE_RANGES);
        assertEquals(hl, DataHeader.decodeBase(h, host, MAX));
        assertEquals(WireStatus.OK, DataHeader.decodeExtensions(h, host, MAX));
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT,
                DataHeader.encodeSameHostWrite(h, host, 0, 0, 2, 3), "five ranges do not fit");
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT, DataHeader.encodeSameHostWrite(h, host, 0, 0, 1, 0));
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT, DataHeader.encodeSameHostWrite(h, host, 0, 0, 0, 1));

        sameHostWrite(0, 0, sources(301), 100, 200); // the source is not what the targets add up to
        assertEquals(WireStatus.RMA_LENGTH_MISMATCH, DataHeader.decodeExtensions(h, host, MAX));
        sameHostWrite(0, 0, sources(100, 199), 300);
        assertEquals(WireStatus.RMA_LENGTH_MISMATCH, DataHeader.decodeExtensions(h, host, MAX));
        sameHostWrite(0, 0, sources(-1L, 301), 300); // sources that wrap around to the targets' sum
        assertEquals(WireStatus.OVERSIZED, DataHeader.decodeExtensions(h, host, MAX));
        hl = sameHostWrite(0, 0, sources(300), 300);
        h.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, hl + 300L); // a payload after it
        assertEquals(WireStatus.UNEXPECTED_PAYLOAD, DataHeader.decodeBase(h, host, MAX));
        hl = sameHostWrite(0, 0, sources(300), 300);
        h.set(ValueLayout.JAVA_BYTE, 6, (byte) (hl + 8)); // eight bytes that are no whole range
        h.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, hl + 8L);
        assertEquals(WireStatus.HDR_SIZE_MISMATCH, DataHeader.decodeBase(h, host, MAX));
        sameHostWrite(0, 0, sources(3), 1, 1, 1);
        h.set(ValueLayout.JAVA_BYTE, 5, (byte) 4); // four targets leave no room for a source
        assertEquals(WireStatus.HDR_SIZE_MISMATCH, DataHeader.decodeBase(h, host, MAX));
        sameHostWrite(0, 0, sources(3), 3);
        h.set(ValueLayout.JAVA_BYTE, 5, (byte) 0);
        assertEquals(WireStatus.BAD_RMA_IOV_COUNT, DataHeader.decodeBase(h, host, MAX), "no target range");
        DataHeader.encodeRma(h, host, DataHeader.OP_WRITE, DataHeader.FLAG_SAME_HOST, 0, 1, 8);
        assertFalse(DataHeader.isSameHostWrite(h, host), "the socket form never takes the flag");
        DataHeader.encodeRma(h, host, DataHeader.OP_READ_REQ, DataHeader.FLAG_SAME_HOST, 0, 1, 0);
        assertFalse(DataHeader.isSameHostWrite(h, host));
        assertEquals(16 + 24, DataHeader.decodeBase(h, host, MAX), "a read request never takes the flag");
    }

    @Test
    void sameHostReadyIsABareBaseHeader() {
        assertEquals(16, DataHeader.encodeSameHostReady(h, host));
        assertEquals(16, DataHeader.decodeBase(h, host, MAX));
        assertEquals(DataHeader.OP_SAME_HOST_READY, DataHeader.op(h));
        assertFalse(DataHeader.wantsAck(h, host));
        h.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, 17L);
        assertEquals(WireStatus.BAD_HDR_SIZE, DataHeader.decodeBase(h, host, MAX));
    }

    @Test
    void readRequestLongerThanTheLimitIsOversized() {
        DataHeader.encodeRma(h, host, DataHeader.OP_READ_REQ, 0, 0, 2, 0);
        DataHeader.putRmaIov(h, host, 0, 0, MAX, 1);
        DataHeader.putRmaIov(h, host, 1, 0, 1, 1);
        assertEquals(64, DataHeader.decodeBase(h, host, MAX));
        assertEquals(WireStatus.OVERSIZED, DataHeader.decodeExtensions(h, host, MAX));
        DataHeader.putRmaIov(h, host, 0, 0, -1L, 1);
        assertEquals(WireStatus.OVERSIZED, DataHeader.decodeExtensions(h, host, MAX));
    }

    @Test
    void randomGarbageNeverThrows() {
        Random r = new Random(42);
        byte[] b = new byte[DataHeader.MAX_HDR_SIZE];
        int accepted = 0;
        for (int i = 0; i < 200_000; i++) {
            r.nextBytes(b);
            if (i % 2 == 0) {
                b[0] = 3; // get past the version check often
                b[6] = (byte) (16 + 8 * r.nextInt(14));
            }
            MemorySegment.copy(b, 0, h, ValueLayout.JAVA_BYTE, 0, b.length);
            int hdr = DataHeader.decodeBase(h, host, MAX);
            if (hdr > 0) {
                assertTrue(hdr >= 16 && hdr <= DataHeader.MAX_HDR_SIZE);
                int ext = DataHeader.decodeExtensions(h, host, MAX);
                assertTrue(ext == 0 || WireStatus.isWireError(ext));
                if (ext == 0) {
                    accepted++;
                    assertTrue(Long.compareUnsigned(DataHeader.payloadLength(h, host), MAX) <= 0);
                }
            } else {
                assertTrue(WireStatus.isWireError(hdr), "status " + hdr);
                assertNotNull(WireStatus.describe(hdr));
            }
        }
        assertTrue(accepted >= 0);
    }

    private static void assumeLittleEndianHost() {
        org.junit.jupiter.api.Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN,
                "captures were taken on a little-endian host");
    }
}
