package io.jfabric.provider.rxm.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The atomic parts of an rxm packet (libfabric v1.17 prov/rxm/src/rxm.h, include/ofi_proto.h). A request
 * (ctrl type rxm_ctrl_atomic) and its response (rxm_ctrl_atomic_resp) keep the base header of {@link RxmPacket};
 * op.op is ofi_op_atomic, ofi_op_atomic_fetch or ofi_op_atomic_compare, and the union that carries the tag of a
 * message carries {@code hdr.atomic} instead. The response echoes the request's msg_id, op, datatype and atomic
 * op. Status and result length are the only big-endian fields of rxm's wire (rxm writes them with htonl).
 *
 * <pre>
 * header:    56 u8 atomic.datatype   57 u8 atomic.op (fi_op)   58 u8 atomic.ioc_count (rma_ioc used)
 * request:   64 struct fi_rma_ioc rma_ioc[4] (u64 addr, u64 count, u64 key; host order), 160 data:
 *            the operands (none for FI_ATOMIC_READ), then the compare operands (compare only)
 * response:  64 s32 status (big-endian, 0 or -errno)   68 u32 result_len (big-endian)   72 the results
 * </pre>
 *
 * op.size is the payload after the base header: 96 + operand bytes in a request, 8 + result_len in a response.
 */
public final class AtomicHeader {
    /** ofi_op_atomic, ofi_op_atomic_fetch, ofi_op_atomic_compare. */
    public static final int OP_ATOMIC = 6;
    public static final int OP_ATOMIC_FETCH = 7;
    public static final int OP_ATOMIC_COMPARE = 8;
    /** RXM_IOV_LIMIT: the rma_ioc slots of every request, used or not. */
    public static final int IOC_LIMIT = 4;
    public static final int IOC_SIZE = 24;
    /** sizeof(struct rxm_atomic_hdr). */
    public static final int REQUEST_HEADER = IOC_LIMIT * IOC_SIZE;
    public static final int REQUEST_DATA = RxmPacket.SIZE + REQUEST_HEADER;
    /** sizeof(struct rxm_atomic_resp_hdr). */
    public static final int RESPONSE_HEADER = 8;
    public static final int RESPONSE_DATA = RxmPacket.SIZE + RESPONSE_HEADER;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private AtomicHeader() {
    }

    /** Sets hdr.atomic after {@link RxmPacket#write} (which zeroed the tag word that holds it). */
    public static void setAtomic(MemorySegment p, int datatype, int atomicOp, int iocCount) {
        p.set(ValueLayout.JAVA_BYTE, 56, (byte) datatype);
        p.set(ValueLayout.JAVA_BYTE, 57, (byte) atomicOp);
        p.set(ValueLayout.JAVA_BYTE, 58, (byte) iocCount);
    }

    public static int datatype(MemorySegment p) {
        return p.get(ValueLayout.JAVA_BYTE, 56) & 0xFF;
    }

    public static int atomicOp(MemorySegment p) {
        return p.get(ValueLayout.JAVA_BYTE, 57) & 0xFF;
    }

    public static int iocCount(MemorySegment p) {
        return p.get(ValueLayout.JAVA_BYTE, 58) & 0xFF;
    }

    /** Writes rma_ioc[i]. */
    public static void setIoc(MemorySegment p, int i, long addr, long count, long key) {
        long at = RxmPacket.SIZE + (long) i * IOC_SIZE;
        p.set(U64, at, addr);
        p.set(U64, at + 8, count);
        p.set(U64, at + 16, key);
    }

    public static long iocAddr(MemorySegment p, int i) {
        return p.get(U64, RxmPacket.SIZE + (long) i * IOC_SIZE);
    }

    public static long iocCount(MemorySegment p, int i) {
        return p.get(U64, RxmPacket.SIZE + (long) i * IOC_SIZE + 8);
    }

    public static long iocKey(MemorySegment p, int i) {
        return p.get(U64, RxmPacket.SIZE + (long) i * IOC_SIZE + 16);
    }

    /** The response's status and result length. */
    public static void setResponse(MemorySegment p, int status, int resultLen) {
        p.set(BE32, RxmPacket.SIZE, status);
        p.set(BE32, RxmPacket.SIZE + 4, resultLen);
    }

    public static int status(MemorySegment p) {
        return p.get(BE32, RxmPacket.SIZE);
    }

    public static long resultLen(MemorySegment p) {
        return p.get(BE32, RxmPacket.SIZE + 4) & 0xFFFF_FFFFL;
    }
}
