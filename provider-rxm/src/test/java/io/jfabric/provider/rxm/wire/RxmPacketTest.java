package io.jfabric.provider.rxm.wire;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(10)
class RxmPacketTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void writesRndvReqLikeCaptureC() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(RxmPacket.SIZE + RndvHeader.SIZE);
            RxmPacket.write(p, RxmPacket.CTRL_RNDV_REQ, 3, 17, RxmPacket.OP_TAGGED, 0, 65536, 0, 0x4d2);
            MemorySegment h = p.asSlice(RxmPacket.SIZE);
            RndvHeader.setIov(h, 0, 0, 65536, 0x80000000L);
            RndvHeader.setCount(h, 1);
            String hex = HEX.formatHex(p.toArray(ValueLayout.JAVA_BYTE));
            // ctrl_hdr: version 4, type 2, seg 0, conn_id 3, msg_id 17, ctrl_data 0
            assertEquals("04020000" + "00000000" + "0300000000000000" + "1100000000000000" + "0000000000000000",
                    hex.substring(0, 64));
            // op_hdr: version 2, rx_index 0, op tagged, op_data 0, flags 0, size 65536, data 0, tag 0x4d2
            assertEquals("02000100" + "00000000" + "0000010000000000" + "0000000000000000" + "d204000000000000",
                    hex.substring(64, 128));
            assertEquals("0000000000000000" + "0000010000000000" + "0000008000000000", hex.substring(128, 176));
            assertEquals("01", hex.substring(128 + 96 * 2, 128 + 97 * 2));
            assertEquals(RxmPacket.SIZE + RndvHeader.SIZE, 168, "rndv_req is 168 bytes on the wire");
            assertEquals(RxmPacket.CTRL_RNDV_REQ, RxmPacket.ctrlType(p));
            assertEquals(3, RxmPacket.connId(p));
            assertEquals(17, RxmPacket.msgId(p));
            assertEquals(65536, RxmPacket.size(p));
            assertEquals(0x4d2, RxmPacket.tag(p));
            assertEquals(1, RndvHeader.count(h));
            assertEquals(0x80000000L, RndvHeader.key(h, 0));
            assertEquals(65536, RndvHeader.totalLength(h));
        }
    }

    @Test
    void writeOverwritesEveryHeaderByteOfAReusedBuffer() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(RxmPacket.SIZE);
            p.fill((byte) 0xFF); // a bounce buffer's previous packet
            RxmPacket.write(p, RxmPacket.CTRL_EAGER, 0x0102, 0x0304, RxmPacket.OP_TAGGED,
                    RxmPacket.FLAG_REMOTE_CQ_DATA, 64, 0xDA7AL, 0x7A6L);
            String hex = HEX.formatHex(p.toArray(ValueLayout.JAVA_BYTE));
            // version 4, type eager (0); seg size, seg no, ctrl_data zero; op version 2, op tagged, flags bit 17
            assertEquals("04000000" + "00000000" + "0201000000000000" + "0403000000000000" + "0000000000000000"
                    + "02000100" + "00000200" + "4000000000000000" + "7ada000000000000" + "a607000000000000", hex);
            assertEquals(RxmPacket.FLAG_REMOTE_CQ_DATA, RxmPacket.flags(p));
            assertEquals(RxmPacket.OP_TAGGED, RxmPacket.op(p));
        }
    }

    @Test
    void segmentFieldsRoundTrip() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(RxmPacket.SIZE);
            RxmPacket.write(p, RxmPacket.CTRL_SEG, 1, 9, RxmPacket.OP_MSG, RxmPacket.FLAG_REMOTE_CQ_DATA, 40000, 77, 0);
            RxmPacket.setSegment(p, 16384, 2, RxmPacket.SEG_LAST, 32768);
            assertEquals(16384, RxmPacket.segSize(p));
            assertEquals(2, RxmPacket.segNo(p));
            assertEquals(RxmPacket.SEG_LAST, RxmPacket.segType(p));
            assertEquals(32768L << 32 | RxmPacket.SEG_LAST, RxmPacket.ctrlData(p));
            assertEquals(RxmPacket.FLAG_REMOTE_CQ_DATA, RxmPacket.flags(p));
            assertEquals(77, RxmPacket.data(p));
            assertEquals(4, RxmPacket.ctrlVersion(p));
            assertEquals(2, RxmPacket.opVersion(p));
        }
    }

    @Test
    void badRndvCountIsDetected() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(RndvHeader.SIZE);
            RndvHeader.setCount(h, 0);
            assertEquals(-1, RndvHeader.totalLength(h));
            RndvHeader.setCount(h, 5);
            assertEquals(-1, RndvHeader.totalLength(h));
        }
    }
}
