package io.jfabric.provider.rxm.wire;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(10)
class CmDataTest {
    private static final HexFormat HEX = HexFormat.of();

    /** The 24 bytes of rxm connect data captured from libfabric 1.17 fi_pingpong (wire-captures.md B). */
    private static final byte[] CAPTURED_CONNECT = HEX.parseHex("0102040339910200004000000010000000000000" + "3b300000");

    @Test
    void decodesCapturedConnectFromLibfabric() {
        CmData.Connect c = CmData.Connect.decode(CAPTURED_CONNECT);
        assertNotNull(c);
        assertEquals(1, c.version());
        assertEquals(CmData.ENDIAN_LITTLE, c.endianness());
        assertEquals(4, c.ctrlVersion());
        assertEquals(3, c.opVersion());
        assertEquals(0x9139, c.port());
        assertEquals(CmData.FLOW_CTRL_PEER_OFF, c.flowCtrl());
        assertEquals(16384, c.eagerLimit());
        assertEquals(4096, c.rxSize());
        assertEquals(0x303b, CmData.peerPid(c.clientConnId()));
        assertEquals(0, CmData.peerIndex(c.clientConnId()));
        assertNull(c.mismatch(16384));
        assertTrue(c.mismatch(8192).contains("BUFFER_SIZE"), c.mismatch(8192));
    }

    @Test
    void encodesConnectByteForByteAsLibfabric() {
        CmData.Connect c = CmData.Connect.local(0x9139, 16384, 4096, CmData.connId(0x303b, 0));
        assertArrayEquals(CAPTURED_CONNECT, c.encode());
        assertEquals(c, CmData.Connect.decode(c.encode()));
    }

    @Test
    void verifyRejectsEachMismatchLikeRxmVerifyConnreq() {
        CmData.Connect ok = CmData.Connect.local(1, 16384, 4096, 7);
        assertNull(ok.mismatch(16384));
        assertNotNull(new CmData.Connect(2, ok.endianness(), 4, 3, 1, 2, 16384, 4096, 7).mismatch(16384));
        assertNotNull(new CmData.Connect(1, 3 - ok.endianness(), 4, 3, 1, 2, 16384, 4096, 7).mismatch(16384));
        assertNotNull(new CmData.Connect(1, ok.endianness(), 3, 3, 1, 2, 16384, 4096, 7).mismatch(16384));
        assertNotNull(new CmData.Connect(1, ok.endianness(), 4, 2, 1, 2, 16384, 4096, 7).mismatch(16384));
        assertNull(CmData.Connect.decode(new byte[23]), "short data is not a connect");
    }

    @Test
    void acceptRoundTripsAndHasLibfabricLayout() {
        CmData.Accept a = new CmData.Accept(CmData.connId(0x1234, 5), 4096, CmData.FLOW_CTRL_PEER_OFF);
        byte[] b = a.encode();
        assertEquals(16, b.length);
        assertEquals("0500000034120000" + "00100000" + "02000000", HEX.formatHex(b));
        assertEquals(a, CmData.Accept.decode(b));
        assertNull(CmData.Accept.decode(new byte[8]));
    }

    @Test
    void rejectDecodesLikeRxmProcessReject() {
        assertArrayEquals(new byte[] {1, 2}, CmData.Reject.of(CmData.REJECT_EALREADY).encode());
        assertEquals(CmData.REJECT_EALREADY, CmData.Reject.decode(new byte[] {1, 2}).reason());
        // no data, or a foreign version, counts as a plain refusal
        assertEquals(CmData.REJECT_ECONNREFUSED, CmData.Reject.decode(null).reason());
        assertEquals(CmData.REJECT_ECONNREFUSED, CmData.Reject.decode(new byte[] {9, 2}).reason());
    }

    @Test
    void connIdCarriesPidAndIndex() {
        long id = CmData.connId(0xFFFF_FFF0L, -1);
        assertEquals(0xFFFF_FFF0L, CmData.peerPid(id));
        assertEquals(-1, CmData.peerIndex(id));
    }

    @Test
    void sameHostAnnouncementRidesAfterTheConnectDataAndLibfabricDataHasNone() {
        CmData.SameHost sh = new CmData.SameHost(0xFFFF_FFF0L, 0x7f00_1234_5678L, 0x1122_3344_5566_7788L);
        byte[] connect = sh.appendTo(CAPTURED_CONNECT);
        assertEquals(CmData.SameHost.OFFSET + CmData.SameHost.SIZE, connect.length);
        // libfabric reads only its 24 bytes: they are unchanged
        assertEquals(CmData.Connect.decode(CAPTURED_CONNECT), CmData.Connect.decode(connect));
        assertEquals(sh, CmData.SameHost.decode(connect));
        // an accept (16 bytes here) is padded to libfabric's 24-byte union first
        byte[] accept = sh.appendTo(new CmData.Accept(CmData.connId(7, 3), 4096, CmData.FLOW_CTRL_PEER_OFF).encode());
        assertEquals(CmData.connId(7, 3), CmData.Accept.decode(accept).serverConnId());
        assertEquals(sh, CmData.SameHost.decode(accept));

        assertNull(CmData.SameHost.decode(CAPTURED_CONNECT), "libfabric's 24 bytes announce nothing");
        assertNull(CmData.SameHost.decode(null));
        byte[] wrongMagic = connect.clone();
        wrongMagic[CmData.SameHost.OFFSET] ^= 1;
        assertNull(CmData.SameHost.decode(wrongMagic));
        assertNull(CmData.SameHost.decode(java.util.Arrays.copyOf(connect, connect.length - 1)));
    }
}
