package io.jfabric.provider.rxm.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Accessors for libfabric's {@code struct rxm_pkt}: {@code ofi_ctrl_hdr} (32 bytes) followed by
 * {@code ofi_op_hdr} (32 bytes) and the payload (include/ofi_proto.h, prov/rxm/src/rxm.h, v1.17).
 * Fields are in host byte order, as rxm writes them. Static methods over a segment that starts at
 * the packet, so the data path reads and writes headers in place without objects.
 *
 * <pre>
 *  0 u8  ctrl.version (RXM_CTRL_VERSION 4)   32 u8  op.version (OFI_OP_VERSION 2)
 *  1 u8  ctrl.type (rxm_ctrl_*)              33 u8  op.rx_index
 *  2 u16 ctrl.seg_size (SAR segment bytes)   34 u8  op.op (ofi_op_msg 0, ofi_op_tagged 1)
 *  4 u32 ctrl.seg_no                         35 u8  op.op_data
 *  8 u64 ctrl.conn_id (receiver's index)     36 u32 op.flags (FI_REMOTE_CQ_DATA)
 * 16 u64 ctrl.msg_id (sender's tx buffer)    40 u64 op.size (whole message length)
 * 24 u64 ctrl.ctrl_data (SAR: seg type, off) 48 u64 op.data (remote CQ data)
 *                                            56 u64 op.tag
 * </pre>
 */
public final class RxmPacket {
    public static final int SIZE = 64;

    /** ofi_op_hdr.version. */
    public static final int OFI_OP_VERSION = 2;
    public static final int OP_MSG = 0;
    public static final int OP_TAGGED = 1;

    /** rxm_ctrl_* packet types. */
    public static final int CTRL_EAGER = 0;
    public static final int CTRL_SEG = 1;
    public static final int CTRL_RNDV_REQ = 2;
    public static final int CTRL_RNDV_RD_DONE = 3;
    public static final int CTRL_ATOMIC = 4;
    public static final int CTRL_ATOMIC_RESP = 5;
    public static final int CTRL_CREDIT = 6;
    public static final int CTRL_RNDV_WR_DATA = 7;
    public static final int CTRL_RNDV_WR_DONE = 8;

    /** SAR segment types (rxm_sar_seg_type, the low two bits of ctrl_data). */
    public static final int SEG_FIRST = 1;
    public static final int SEG_MIDDLE = 2;
    public static final int SEG_LAST = 3;

    /** FI_REMOTE_CQ_DATA, the only bit rxm puts in op.flags. */
    public static final int FLAG_REMOTE_CQ_DATA = 1 << 17;

    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final boolean LITTLE = ORDER == ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ORDER);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ORDER);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ORDER);

    private RxmPacket() {
    }

    /**
     * Writes a whole header: ctrl version/type, conn_id, msg_id, op version/op, flags, size, data, tag.
     * seg fields and ctrl_data are zeroed; SAR callers set them afterwards.
     */
    public static void write(MemorySegment p, int ctrlType, long connId, long msgId, int op, int flags, long size,
                             long data, long tag) {
        // eight 8-byte stores instead of fifteen field stores: this runs once per message, and every store is a
        // bounds check on the segment
        p.set(U64, 0, LITTLE ? (CmData.CTRL_VERSION & 0xFF) | (ctrlType & 0xFF) << 8
                : (long) (CmData.CTRL_VERSION & 0xFF) << 56 | (long) (ctrlType & 0xFF) << 48);
        p.set(U64, 8, connId);
        p.set(U64, 16, msgId);
        p.set(U64, 24, 0L);
        p.set(U64, 32, LITTLE ? (OFI_OP_VERSION & 0xFF) | (op & 0xFF) << 16 | (flags & 0xFFFF_FFFFL) << 32
                : (long) (OFI_OP_VERSION & 0xFF) << 56 | (long) (op & 0xFF) << 40 | (flags & 0xFFFF_FFFFL));
        p.set(U64, 40, size);
        p.set(U64, 48, data);
        p.set(U64, 56, tag);
    }

    /** Sets the SAR fields of a segment packet: its length, number and type (offset kept for debuggers). */
    public static void setSegment(MemorySegment p, int segSize, int segNo, int segType, long offset) {
        p.set(U16, 2, (short) segSize);
        p.set(U32, 4, segNo);
        p.set(U32, 24, segType & 0x3);
        p.set(U32, 28, (int) offset);
    }

    public static int ctrlVersion(MemorySegment p) {
        return p.get(ValueLayout.JAVA_BYTE, 0) & 0xFF;
    }

    public static int ctrlType(MemorySegment p) {
        return p.get(ValueLayout.JAVA_BYTE, 1) & 0xFF;
    }

    public static int segSize(MemorySegment p) {
        return p.get(U16, 2) & 0xFFFF;
    }

    public static long segNo(MemorySegment p) {
        return p.get(U32, 4) & 0xFFFF_FFFFL;
    }

    public static long connId(MemorySegment p) {
        return p.get(U64, 8);
    }

    public static long msgId(MemorySegment p) {
        return p.get(U64, 16);
    }

    public static long ctrlData(MemorySegment p) {
        return p.get(U64, 24);
    }

    public static void setCtrlData(MemorySegment p, long v) {
        p.set(U64, 24, v);
    }

    /** rxm_sar_get_seg_type: the low two bits of the bit-field word of ctrl_data. */
    public static int segType(MemorySegment p) {
        return p.get(U32, 24) & 0x3;
    }

    public static int opVersion(MemorySegment p) {
        return p.get(ValueLayout.JAVA_BYTE, 32) & 0xFF;
    }

    public static int op(MemorySegment p) {
        return p.get(ValueLayout.JAVA_BYTE, 34) & 0xFF;
    }

    public static int flags(MemorySegment p) {
        return p.get(U32, 36);
    }

    public static long size(MemorySegment p) {
        return p.get(U64, 40);
    }

    public static long data(MemorySegment p) {
        return p.get(U64, 48);
    }

    public static long tag(MemorySegment p) {
        return p.get(U64, 56);
    }

    /** Name of a ctrl type, for logs and error messages. */
    public static String ctrlTypeName(int type) {
        return switch (type) {
            case CTRL_EAGER -> "rxm_ctrl_eager";
            case CTRL_SEG -> "rxm_ctrl_seg";
            case CTRL_RNDV_REQ -> "rxm_ctrl_rndv_req";
            case CTRL_RNDV_RD_DONE -> "rxm_ctrl_rndv_rd_done";
            case CTRL_ATOMIC -> "rxm_ctrl_atomic";
            case CTRL_ATOMIC_RESP -> "rxm_ctrl_atomic_resp";
            case CTRL_CREDIT -> "rxm_ctrl_credit";
            case CTRL_RNDV_WR_DATA -> "rxm_ctrl_rndv_wr_data";
            case CTRL_RNDV_WR_DONE -> "rxm_ctrl_rndv_wr_done";
            default -> "rxm_ctrl_" + type;
        };
    }
}
