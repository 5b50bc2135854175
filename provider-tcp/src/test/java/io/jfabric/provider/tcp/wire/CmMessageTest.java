package io.jfabric.provider.tcp.wire;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CmMessageTest {
    private final Arena arena = Arena.ofAuto();

    private MemorySegment bytes(String hex) {
        byte[] b = HexFormat.of().parseHex(hex.replace(" ", ""));
        MemorySegment s = arena.allocate(Math.max(b.length, CmMessage.MAX_SIZE));
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s;
    }

    @Test
    void connreqWithoutDataMatchesTheFiPingpongCapture() {
        MemorySegment dst = arena.allocate(CmMessage.MAX_SIZE);
        int n = CmMessage.encode(dst, CmMessage.TYPE_CONNREQ, null, 0);
        assertEquals(32, n);
        // captured from libfabric 1.17 fi_pingpong -p tcp -e msg on x86_64
        assertEquals("03000000000000000000000000000000000000000000000001000000" + "00000000",
                HexFormat.of().formatHex(dst.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void capturedConnrespDecodes() {
        MemorySegment src = bytes("0301000000000000 0000000000000000 0000000000000000 0100000000000000");
        assertEquals(0, CmMessage.decodeHeader(src, CmMessage.TYPE_CONNRESP));
        assertEquals(CmMessage.TYPE_CONNRESP, CmMessage.type(src));
        assertTrue(CmMessage.peerSameEndianness(src));
        assertSame(WireOrder.HOST, CmMessage.peerOrder(src));
    }

    @Test
    void sameHostAnnouncementUsesOnlyFieldsLibfabricLeavesZero() {
        MemorySegment captured = bytes("0301000000000000 0000000000000000 0000000000000000 0100000000000000");
        assertEquals(0, CmMessage.sameHostPid(captured), "libfabric announces nothing");
        MemorySegment dst = arena.allocate(CmMessage.MAX_SIZE);
        int n = CmMessage.encode(dst, CmMessage.TYPE_CONNRESP, null, 0);
        CmMessage.announceSameHost(dst, 4242, 0x7fff_1234_5670L, 0x0123_4567_89ab_cdefL);
        assertEquals(0, CmMessage.decodeHeader(dst, CmMessage.TYPE_CONNRESP), "still a valid CM message");
        assertEquals(CmMessage.TYPE_CONNRESP, CmMessage.type(dst));
        assertTrue(CmMessage.peerSameEndianness(dst));
        assertEquals(4242, CmMessage.sameHostPid(dst));
        assertEquals(0x7fff_1234_5670L, CmMessage.sameHostTokenAddress(dst));
        assertEquals(0x0123_4567_89ab_cdefL, CmMessage.sameHostToken(dst));
        // the version, type, length and probe bytes are the captured ones
        assertEquals("03010000", HexFormat.of().formatHex(dst.asSlice(0, 4).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals("0100000000000000", HexFormat.of().formatHex(dst.asSlice(24, 8).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(32, n);
    }

    @Test
    void dataRoundTripsUpTo256BytesWithNetworkOrderLength() {
        MemorySegment data = arena.allocate(256);
        for (int i = 0; i < 256; i++) {
            data.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        MemorySegment dst = arena.allocate(CmMessage.MAX_SIZE);
        int n = CmMessage.encode(dst, CmMessage.TYPE_CONNREQ, data, 256);
        assertEquals(288, n);
        assertEquals(0x01, dst.get(ValueLayout.JAVA_BYTE, 2)); // htons(256) = 01 00
        assertEquals(0x00, dst.get(ValueLayout.JAVA_BYTE, 3));
        assertEquals(256, CmMessage.decodeHeader(dst, CmMessage.TYPE_CONNREQ));
        assertEquals(-1, dst.asSlice(32, 256).mismatch(data));
    }

    @Test
    void nackIsAcceptedOnlyWhileWaitingForAResponse() {
        MemorySegment dst = arena.allocate(CmMessage.MAX_SIZE);
        MemorySegment data = arena.allocate(5);
        data.setString(0, "nope");
        assertEquals(37, CmMessage.encode(dst, CmMessage.TYPE_NACK, data, 5));
        assertEquals(5, CmMessage.decodeHeader(dst, CmMessage.TYPE_CONNRESP));
        assertEquals(CmMessage.TYPE_NACK, CmMessage.type(dst));
        assertEquals(WireStatus.UNEXPECTED_CM_TYPE, CmMessage.decodeHeader(dst, CmMessage.TYPE_CONNREQ));
    }

    @Test
    void rejectsBadVersionTypeLengthAndProbe() {
        MemorySegment m = arena.allocate(CmMessage.MAX_SIZE);
        CmMessage.encode(m, CmMessage.TYPE_CONNREQ, null, 0);
        m.set(ValueLayout.JAVA_BYTE, 0, (byte) 2);
        assertEquals(WireStatus.BAD_CM_VERSION, CmMessage.decodeHeader(m, CmMessage.TYPE_CONNREQ));
        assertEquals(92, WireStatus.errno(WireStatus.BAD_CM_VERSION));

        CmMessage.encode(m, CmMessage.TYPE_CONNRESP, null, 0);
        assertEquals(WireStatus.UNEXPECTED_CM_TYPE, CmMessage.decodeHeader(m, CmMessage.TYPE_CONNREQ));

        CmMessage.encode(m, CmMessage.TYPE_CONNREQ, null, 0);
        m.set(ValueLayout.JAVA_BYTE, 2, (byte) 0x01);
        m.set(ValueLayout.JAVA_BYTE, 3, (byte) 0x01); // 257
        assertEquals(WireStatus.CM_DATA_TOO_LARGE, CmMessage.decodeHeader(m, CmMessage.TYPE_CONNREQ));

        CmMessage.encode(m, CmMessage.TYPE_CONNREQ, null, 0);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 24, 7L);
        assertEquals(WireStatus.BAD_ENDIAN_PROBE, CmMessage.decodeHeader(m, CmMessage.TYPE_CONNREQ));

        assertEquals(WireStatus.BUFFER_TOO_SMALL, CmMessage.decodeHeader(m.asSlice(0, 31), CmMessage.TYPE_CONNREQ));
        assertEquals(WireStatus.CM_DATA_TOO_LARGE, CmMessage.encode(m, CmMessage.TYPE_CONNREQ, arena.allocate(300), 257));
        assertEquals(WireStatus.BUFFER_TOO_SMALL, CmMessage.encode(m.asSlice(0, 40), CmMessage.TYPE_CONNREQ, arena.allocate(16), 16));
        assertTrue(WireStatus.describe(WireStatus.BAD_ENDIAN_PROBE).contains("endianness"));
    }

    @Test
    void bigEndianPeerIsDetectedFromItsProbe() {
        // a big-endian libfabric writes conn_data = 1 as 00..01
        MemorySegment src = bytes("0300000000000000 0000000000000000 0000000000000000 0000000000000001");
        assertEquals(0, CmMessage.decodeHeader(src, CmMessage.TYPE_CONNREQ));
        boolean hostIsLittle = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;
        assertEquals(!hostIsLittle, CmMessage.peerSameEndianness(src));
        assertEquals(java.nio.ByteOrder.BIG_ENDIAN, CmMessage.peerOrder(src).byteOrder());
    }
}
