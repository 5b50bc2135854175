package io.jfabric.provider.tcp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Encoder, validator and accessors of the data-frame header: the 16-byte base header plus its extensions.
 *
 * <p>Mirrors {@code struct tcpx_base_hdr} and its extensions in libfabric 1.17 ({@code prov/tcp/src/tcpx.h}):
 * <pre>
 *  0 u8 version (3)   1 u8 op   2 u16 flags   4 u8 op_data   5 u8 rma_iov_cnt   6 u8 hdr_size   7 u8 id
 *  8 u64 size (header + payload)
 * 16 [u64 cq_data   if REMOTE_CQ_DATA]
 *    [u64 tag       if TAGGED, op_msg only]
 *    [ofi_rma_iov {u64 addr, u64 len, u64 key} x rma_iov_cnt   for write and read_req]
 * </pre>
 * Multi-byte fields use the connection's {@link WireOrder}; {@code seg} arguments are caller-owned
 * (native, preallocated) and nothing here allocates.
 *
 * <p>jfabric's same-host path (between jfabric peers that proved it when connecting, provider-tcp's
 * {@code TcpSameHost}) adds two things libfabric never sends: {@link #FLAG_SAME_HOST} on an op_msg or a read
 * response, whose header then ends with {@code rma_iov_cnt} (1..4) {addr, len, key 0} entries naming the sender's
 * buffers (a read response: the target's ranges it checked) and whose frame has no payload (the receiver copies the
 * data out of the sender's memory, and ACKs a message), and on a write, whose {@code rma_iov_cnt} target ranges
 * are then followed by such entries naming the initiator's source buffers up to {@code hdr_size}, at least one and
 * at most four ranges in all, again with no payload (the target copies them, then ACKs); and the bare 16-byte
 * {@link #OP_SAME_HOST_READY} frame, by which a side tells its peer that it can read the peer's memory.
 *
 * <p>Differences from libfabric, which checks only {@code hdr_size <= 120} and the op range: the decoder also
 * rejects a version other than 3, an {@code hdr_size} inconsistent with op/flags/rma_iov_cnt, a size below
 * hdr_size, a payload above the caller's limit, a malformed ACK and (for writes) iov lengths that do not add up
 * to the payload. {@code rma_iov_cnt} is ignored on op_msg because libfabric leaves it stale there.
 */
public final class DataHeader {
    public static final int VERSION = 3;
    public static final int BASE_SIZE = 16;
    public static final int RMA_IOV_SIZE = 24;
    public static final int IOV_LIMIT = 4;
    /** {@code TCPX_MAX_HDR}: base + cq_data + 4 rma iovs. */
    public static final int MAX_HDR_SIZE = BASE_SIZE + 8 + RMA_IOV_SIZE * IOV_LIMIT;
    /**
     * Ranges a same-host write can name beside cq_data within {@link #MAX_HDR_SIZE}: its target ranges and its
     * source ranges together.
     */
    public static final int SAME_HOST_WRITE_RANGES = (MAX_HDR_SIZE - BASE_SIZE - 8) / RMA_IOV_SIZE;

    public static final int OP_MSG = 0;
    public static final int OP_TAGGED = 1;
    public static final int OP_READ_REQ = 2;
    public static final int OP_READ_RSP = 3;
    public static final int OP_WRITE = 4;

    /** jfabric only: "I can copy from your memory" (TcpSameHost). */
    public static final int OP_SAME_HOST_READY = 0x4A;

    /** {@code base_hdr.op_data} of an ACK. */
    public static final int OP_DATA_ACK = 2;

    public static final int FLAG_REMOTE_CQ_DATA = 1;
    public static final int FLAG_DELIVERY_COMPLETE = 1 << 2;
    public static final int FLAG_COMMIT_COMPLETE = 1 << 3;
    /** jfabric only: the message or write is in the sender's memory, named by the header's iovs (TcpSameHost). */
    public static final int FLAG_SAME_HOST = 1 << 6;
    public static final int FLAG_TAGGED = 1 << 7;

    private static final long OFF_VERSION = 0;
    private static final long OFF_OP = 1;
    private static final long OFF_FLAGS = 2;
    private static final long OFF_OP_DATA = 4;
    private static final long OFF_RMA_IOV_CNT = 5;
    private static final long OFF_HDR_SIZE = 6;
    private static final long OFF_ID = 7;
    private static final long OFF_SIZE = 8;

    private DataHeader() {
    }

    // ---------------------------------------------------------------- encoding

    /**
     * Writes an op_msg header (optionally with cq_data and tag) for {@code payloadLength} bytes.
     *
     * @param flags a combination of {@code FLAG_*}; REMOTE_CQ_DATA and TAGGED add their extension
     * @return the header length
     */
    public static int encodeMsg(MemorySegment h, WireOrder o, int flags, long cqData, long tag, long payloadLength) {
        int hdr = putMsgExtensions(h, o, flags, cqData, tag);
        putBase(h, o, OP_MSG, flags, 0, 0, hdr, hdr + payloadLength);
        return hdr;
    }

    /** Writes an op_msg's cq_data and tag where its flags ask for them; returns where the header goes on. */
    private static int putMsgExtensions(MemorySegment h, WireOrder o, int flags, long cqData, long tag) {
        int hdr = BASE_SIZE;
        if ((flags & FLAG_REMOTE_CQ_DATA) != 0) {
            WireOrder.setU64(h, o, hdr, cqData);
            hdr += 8;
        }
        if ((flags & FLAG_TAGGED) != 0) {
            WireOrder.setU64(h, o, hdr, tag);
            hdr += 8;
        }
        return hdr;
    }

    /**
     * Writes a same-host op_msg header: the message stays in {@code iov} (native memory), which the header names;
     * the frame carries no payload and asks for an ACK, sent once the receiver has copied it.
     *
     * @return the header length
     */
    public static int encodeSameHostMsg(MemorySegment h, WireOrder o, int flags, long cqData, long tag,
                                        MemorySegment[] iov, int count) {
        flags |= FLAG_SAME_HOST | FLAG_DELIVERY_COMPLETE;
        int hdr = putMsgExtensions(h, o, flags, cqData, tag) + RMA_IOV_SIZE * count;
        putBase(h, o, OP_MSG, flags, 0, count, hdr, hdr);
        for (int i = 0; i < count; i++) {
            putSameHostIov(h, o, i, iov[i].address(), iov[i].byteSize());
        }
        return hdr;
    }

    /** Writes the bare {@link #OP_SAME_HOST_READY} frame. */
    public static int encodeSameHostReady(MemorySegment h, WireOrder o) {
        putBase(h, o, OP_SAME_HOST_READY, 0, 0, 0, BASE_SIZE, BASE_SIZE);
        return BASE_SIZE;
    }

    /** Writes the 16-byte ACK that answers a DELIVERY/COMMIT_COMPLETE frame. */
    public static int encodeAck(MemorySegment h, WireOrder o) {
        putBase(h, o, OP_MSG, 0, OP_DATA_ACK, 0, BASE_SIZE, BASE_SIZE);
        return BASE_SIZE;
    }

    /**
     * Writes the base (and cq_data) of an RMA write or read request; the iovs are then written with
     * {@link #putRmaIov}. A read request never carries cq_data, and neither takes {@link #FLAG_SAME_HOST} (a
     * same-host write is {@link #encodeSameHostWrite}'s).
     *
     * @return the header length, or {@link WireStatus#BAD_RMA_IOV_COUNT} / {@link WireStatus#UNKNOWN_OP}
     */
    public static int encodeRma(MemorySegment h, WireOrder o, int op, int flags, long cqData, int iovCount,
                                long payloadLength) {
        if (iovCount < 0 || iovCount > IOV_LIMIT) {
            return WireStatus.BAD_RMA_IOV_COUNT;
        }
        flags &= ~FLAG_SAME_HOST;
        int hdr = BASE_SIZE;
        if (op == OP_WRITE) {
            if ((flags & FLAG_REMOTE_CQ_DATA) != 0) {
                WireOrder.setU64(h, o, hdr, cqData);
                hdr += 8;
            }
        } else if (op == OP_READ_REQ) {
            flags &= ~FLAG_REMOTE_CQ_DATA;
            payloadLength = 0;
        } else {
            return WireStatus.UNKNOWN_OP;
        }
        hdr += RMA_IOV_SIZE * iovCount;
        putBase(h, o, op, flags & ~FLAG_TAGGED, 0, iovCount, hdr, hdr + payloadLength);
        return hdr;
    }

    /**
     * Writes the base (and cq_data) of a same-host write: its {@code targets} ranges, written with
     * {@link #putRmaIov}, are followed by the {@code sources} ranges of the initiator's memory that hold the data,
     * written with {@link #putSameHostIov}; no payload follows. The target tells how many sources there are from
     * {@code hdr_size}, so libfabric's header needs no new field.
     *
     * @return the header length, or {@link WireStatus#BAD_RMA_IOV_COUNT} unless there are at least one of each
     *         and at most {@link #SAME_HOST_WRITE_RANGES} in all
     */
    public static int encodeSameHostWrite(MemorySegment h, WireOrder o, int flags, long cqData, int targets,
                                          int sources) {
        if (targets < 1 || sources < 1 || targets + sources > SAME_HOST_WRITE_RANGES) {
            return WireStatus.BAD_RMA_IOV_COUNT;
        }
        int hdr = BASE_SIZE;
        if ((flags & FLAG_REMOTE_CQ_DATA) != 0) {
            WireOrder.setU64(h, o, hdr, cqData);
            hdr += 8;
        }
        hdr += RMA_IOV_SIZE * (targets + sources);
        putBase(h, o, OP_WRITE, (flags | FLAG_SAME_HOST) & ~FLAG_TAGGED, 0, targets, hdr, hdr);
        return hdr;
    }

    /** Writes rma iov {@code index} of a header begun with {@link #encodeRma}. */
    public static void putRmaIov(MemorySegment h, WireOrder o, int index, long addr, long len, long key) {
        long off = rmaIovOffset(h, o) + (long) index * RMA_IOV_SIZE;
        WireOrder.setU64(h, o, off, addr);
        WireOrder.setU64(h, o, off + 8, len);
        WireOrder.setU64(h, o, off + 16, key);
    }

    /**
     * Writes a same-host read response: the data stays in the target's memory at the {@code count} (1..4) ranges
     * that {@link #putSameHostIov} then names, and the frame carries no payload (the initiator copies them out).
     *
     * @return the header length
     */
    public static int encodeSameHostReadRsp(MemorySegment h, WireOrder o, int count) {
        int hdr = BASE_SIZE + RMA_IOV_SIZE * count;
        putBase(h, o, OP_READ_RSP, FLAG_SAME_HOST, 0, count, hdr, hdr);
        return hdr;
    }

    /**
     * Writes range {@code i} of a same-host frame whose base is written: where the ranges start follows from its
     * flags.
     */
    public static void putSameHostIov(MemorySegment h, WireOrder o, int i, long addr, long len) {
        long off = sameHostIovOffset(h, o) + (long) i * RMA_IOV_SIZE;
        WireOrder.setU64(h, o, off, addr);
        WireOrder.setU64(h, o, off + 8, len);
        WireOrder.setU64(h, o, off + 16, 0L);
    }

    /** Writes the header of a read response carrying {@code payloadLength} bytes. */
    public static int encodeReadRsp(MemorySegment h, WireOrder o, long payloadLength) {
        putBase(h, o, OP_READ_RSP, 0, 0, 0, BASE_SIZE, BASE_SIZE + payloadLength);
        return BASE_SIZE;
    }

    private static void putBase(MemorySegment h, WireOrder o, int op, int flags, int opData, int rmaIovCnt,
                                int hdrSize, long size) {
        h.set(ValueLayout.JAVA_BYTE, OFF_VERSION, (byte) VERSION);
        h.set(ValueLayout.JAVA_BYTE, OFF_OP, (byte) op);
        WireOrder.setU16(h, o, OFF_FLAGS, (short) flags);
        h.set(ValueLayout.JAVA_BYTE, OFF_OP_DATA, (byte) opData);
        h.set(ValueLayout.JAVA_BYTE, OFF_RMA_IOV_CNT, (byte) rmaIovCnt);
        h.set(ValueLayout.JAVA_BYTE, OFF_HDR_SIZE, (byte) hdrSize);
        h.set(ValueLayout.JAVA_BYTE, OFF_ID, (byte) 0);
        WireOrder.setU64(h, o, OFF_SIZE, size);
    }

    // ---------------------------------------------------------------- validation

    /**
     * Validates the first 16 bytes of a received frame.
     *
     * @param maxPayload the largest payload this side accepts (unsigned comparison)
     * @return the full header length to read (16..120), or a negative {@link WireStatus}
     */
    public static int decodeBase(MemorySegment h, WireOrder o, long maxPayload) {
        if (h.byteSize() < BASE_SIZE) {
            return WireStatus.BUFFER_TOO_SMALL;
        }
        if (version(h) != VERSION) {
            return WireStatus.BAD_VERSION;
        }
        int op = op(h);
        if (op == OP_SAME_HOST_READY) {
            return hdrSize(h) == BASE_SIZE && size(h, o) == BASE_SIZE && opData(h) == 0 ? BASE_SIZE
                    : WireStatus.BAD_HDR_SIZE;
        }
        if (op > OP_WRITE) {
            return WireStatus.UNKNOWN_OP;
        }
        if (op == OP_TAGGED) {
            return WireStatus.UNSUPPORTED_OP;
        }
        int hdrSize = hdrSize(h);
        if (hdrSize < BASE_SIZE || hdrSize > MAX_HDR_SIZE || (hdrSize & 7) != 0) {
            return WireStatus.BAD_HDR_SIZE;
        }
        int opData = opData(h);
        long size = size(h, o);
        if (opData == OP_DATA_ACK) {
            if (op != OP_MSG) {
                return WireStatus.BAD_OP_DATA;
            }
            return hdrSize == BASE_SIZE && size == BASE_SIZE ? BASE_SIZE : WireStatus.BAD_ACK;
        }
        if (opData != 0) {
            return WireStatus.BAD_OP_DATA;
        }
        int flags = flags(h, o);
        boolean sameHostWrite = op == OP_WRITE && (flags & FLAG_SAME_HOST) != 0;
        int expected;
        switch (op) {
            case OP_MSG -> {
                expected = BASE_SIZE + ((flags & FLAG_REMOTE_CQ_DATA) != 0 ? 8 : 0)
                        + ((flags & FLAG_TAGGED) != 0 ? 8 : 0);
                if ((flags & FLAG_SAME_HOST) != 0) {
                    expected = withSameHostIovs(h, size, expected);
                    if (expected < 0) {
                        return expected;
                    }
                }
            }
            case OP_WRITE, OP_READ_REQ -> {
                int cnt = rmaIovCount(h);
                if (cnt > IOV_LIMIT) {
                    return WireStatus.BAD_RMA_IOV_COUNT;
                }
                expected = BASE_SIZE + RMA_IOV_SIZE * cnt
                        + (op == OP_WRITE && (flags & FLAG_REMOTE_CQ_DATA) != 0 ? 8 : 0);
                if (sameHostWrite) {
                    if (cnt < 1) {
                        return WireStatus.BAD_RMA_IOV_COUNT;
                    }
                    // the source ranges fill the rest of the header: at least one, whole ranges only
                    int rest = hdrSize - expected;
                    expected += rest > 0 && rest % RMA_IOV_SIZE == 0 ? rest : RMA_IOV_SIZE;
                }
            }
            default -> { // read_rsp
                expected = BASE_SIZE;
                if ((flags & FLAG_SAME_HOST) != 0) {
                    expected = withSameHostIovs(h, size, expected);
                    if (expected < 0) {
                        return expected;
                    }
                }
            }
        }
        if (hdrSize != expected) {
            return WireStatus.HDR_SIZE_MISMATCH;
        }
        if (Long.compareUnsigned(size, hdrSize) < 0) {
            return WireStatus.SIZE_BELOW_HDR;
        }
        long payload = size - hdrSize;
        if ((op == OP_READ_REQ || sameHostWrite) && payload != 0) {
            return WireStatus.UNEXPECTED_PAYLOAD;
        }
        if (Long.compareUnsigned(payload, maxPayload) > 0) {
            return WireStatus.OVERSIZED;
        }
        return hdrSize;
    }

    /**
     * The header length of a same-host frame whose fields before its ranges take {@code fixed} bytes: 1..4 ranges
     * follow and nothing comes after them; else a negative {@link WireStatus}.
     */
    private static int withSameHostIovs(MemorySegment h, long size, int fixed) {
        int cnt = rmaIovCount(h);
        if (cnt < 1 || cnt > IOV_LIMIT) {
            return WireStatus.BAD_RMA_IOV_COUNT;
        }
        int hdr = fixed + RMA_IOV_SIZE * cnt;
        return size == hdr ? hdr : WireStatus.UNEXPECTED_PAYLOAD;
    }

    /**
     * Validates the extensions once the whole header ({@link #hdrSize} bytes) is in {@code h}: for a write the
     * iov lengths must add up to the payload (a same-host write's: to its source range), for a read request they
     * must not exceed {@code maxPayload}.
     *
     * @return {@link WireStatus#OK} or a negative {@link WireStatus}
     */
    public static int decodeExtensions(MemorySegment h, WireOrder o, long maxPayload) {
        int op = op(h);
        if (isSameHost(h, o)) {
            long carried = sameHostTotal(h, o, maxPayload);
            return carried < 0 ? (int) carried : WireStatus.OK;
        }
        if ((op != OP_WRITE && op != OP_READ_REQ) || opData(h) == OP_DATA_ACK) {
            return WireStatus.OK;
        }
        if (h.byteSize() < hdrSize(h)) {
            return WireStatus.BUFFER_TOO_SMALL;
        }
        int cnt = rmaIovCount(h);
        long total = 0;
        for (int i = 0; i < cnt; i++) {
            long len = rmaLen(h, o, i);
            if (Long.compareUnsigned(len, maxPayload) > 0) {
                return WireStatus.OVERSIZED;
            }
            total += len; // at most 4 * maxPayload: callers keep maxPayload far below 2^61
        }
        if (Long.compareUnsigned(total, maxPayload) > 0) {
            return WireStatus.OVERSIZED;
        }
        if (op == OP_WRITE) {
            long carried = isSameHostWrite(h, o) ? sameHostTotal(h, o, maxPayload) : payloadLength(h, o);
            if (carried < 0) {
                return (int) carried;
            }
            if (total != carried) {
                return WireStatus.RMA_LENGTH_MISMATCH;
            }
        }
        return WireStatus.OK;
    }

    /** The bytes a same-host frame's ranges name, or {@link WireStatus#OVERSIZED} past {@code maxPayload}. */
    private static long sameHostTotal(MemorySegment h, WireOrder o, long maxPayload) {
        long total = 0;
        for (int i = 0; i < sameHostCount(h, o); i++) {
            long len = sameHostLen(h, o, i);
            if (Long.compareUnsigned(len, maxPayload) > 0) {
                return WireStatus.OVERSIZED;
            }
            total += len;
        }
        return Long.compareUnsigned(total, maxPayload) > 0 ? WireStatus.OVERSIZED : total;
    }

    // ---------------------------------------------------------------- accessors

    public static int version(MemorySegment h) {
        return Byte.toUnsignedInt(h.get(ValueLayout.JAVA_BYTE, OFF_VERSION));
    }

    public static int op(MemorySegment h) {
        return Byte.toUnsignedInt(h.get(ValueLayout.JAVA_BYTE, OFF_OP));
    }

    public static int flags(MemorySegment h, WireOrder o) {
        return Short.toUnsignedInt(WireOrder.getU16(h, o, OFF_FLAGS));
    }

    public static int opData(MemorySegment h) {
        return Byte.toUnsignedInt(h.get(ValueLayout.JAVA_BYTE, OFF_OP_DATA));
    }

    public static int rmaIovCount(MemorySegment h) {
        return Byte.toUnsignedInt(h.get(ValueLayout.JAVA_BYTE, OFF_RMA_IOV_CNT));
    }

    public static int hdrSize(MemorySegment h) {
        return Byte.toUnsignedInt(h.get(ValueLayout.JAVA_BYTE, OFF_HDR_SIZE));
    }

    /** Header plus payload bytes. */
    public static long size(MemorySegment h, WireOrder o) {
        return WireOrder.getU64(h, o, OFF_SIZE);
    }

    public static long payloadLength(MemorySegment h, WireOrder o) {
        return size(h, o) - hdrSize(h);
    }

    public static boolean isAck(MemorySegment h) {
        return op(h) == OP_MSG && opData(h) == OP_DATA_ACK;
    }

    /** False for an ACK whatever its flags say: an ACK is always the bare 16-byte base header. */
    public static boolean hasCqData(MemorySegment h, WireOrder o) {
        return (flags(h, o) & FLAG_REMOTE_CQ_DATA) != 0 && op(h) != OP_READ_REQ && op(h) != OP_READ_RSP
                && !isAck(h);
    }

    /** True when the sender asked for an ACK (FI_TRANSMIT_COMPLETE, FI_DELIVERY_COMPLETE or FI_COMMIT_COMPLETE). */
    public static boolean wantsAck(MemorySegment h, WireOrder o) {
        return (flags(h, o) & (FLAG_DELIVERY_COMPLETE | FLAG_COMMIT_COMPLETE)) != 0
                && (op(h) == OP_MSG || op(h) == OP_WRITE) && !isAck(h);
    }

    public static long cqData(MemorySegment h, WireOrder o) {
        return hasCqData(h, o) ? WireOrder.getU64(h, o, BASE_SIZE) : 0L;
    }

    public static long tag(MemorySegment h, WireOrder o) {
        int flags = flags(h, o);
        if ((flags & FLAG_TAGGED) == 0 || op(h) != OP_MSG || isAck(h)) {
            return 0L;
        }
        return WireOrder.getU64(h, o, BASE_SIZE + ((flags & FLAG_REMOTE_CQ_DATA) != 0 ? 8 : 0));
    }

    /** A same-host op_msg or read response (FLAG_SAME_HOST): the data is named by iovs, not carried. */
    public static boolean isSameHost(MemorySegment h, WireOrder o) {
        int op = op(h);
        return (op == OP_MSG || op == OP_READ_RSP) && opData(h) == 0 && (flags(h, o) & FLAG_SAME_HOST) != 0;
    }

    /**
     * A same-host write (FLAG_SAME_HOST): the data stays in the initiator's memory, at the {@link #sameHostCount}
     * ranges {@link #sameHostAddr} names.
     */
    public static boolean isSameHostWrite(MemorySegment h, WireOrder o) {
        return op(h) == OP_WRITE && (flags(h, o) & FLAG_SAME_HOST) != 0;
    }

    private static long sameHostIovOffset(MemorySegment h, WireOrder o) {
        if (op(h) == OP_WRITE) {
            return rmaIovOffset(h, o) + (long) RMA_IOV_SIZE * rmaIovCount(h);
        }
        int flags = flags(h, o);
        return BASE_SIZE + ((flags & FLAG_REMOTE_CQ_DATA) != 0 ? 8 : 0) + ((flags & FLAG_TAGGED) != 0 ? 8 : 0);
    }

    public static long sameHostAddr(MemorySegment h, WireOrder o, int i) {
        return WireOrder.getU64(h, o, sameHostIovOffset(h, o) + (long) i * RMA_IOV_SIZE);
    }

    public static long sameHostLen(MemorySegment h, WireOrder o, int i) {
        return WireOrder.getU64(h, o, sameHostIovOffset(h, o) + (long) i * RMA_IOV_SIZE + 8);
    }

    /**
     * How many ranges of the sender's memory a same-host frame names: a message's or read response's are its iovs,
     * a write's fill its header after the target ranges.
     */
    public static int sameHostCount(MemorySegment h, WireOrder o) {
        return op(h) == OP_WRITE ? (int) ((hdrSize(h) - sameHostIovOffset(h, o)) / RMA_IOV_SIZE) : rmaIovCount(h);
    }

    /** The whole length of a same-host frame's data (validated not to overflow by {@link #decodeExtensions}). */
    public static long sameHostLength(MemorySegment h, WireOrder o) {
        long total = 0;
        for (int i = 0; i < sameHostCount(h, o); i++) {
            total += sameHostLen(h, o, i);
        }
        return total;
    }

    /** Offset of the first rma iov: after cq_data on a write that carries it. */
    public static long rmaIovOffset(MemorySegment h, WireOrder o) {
        return op(h) == OP_WRITE && (flags(h, o) & FLAG_REMOTE_CQ_DATA) != 0 ? BASE_SIZE + 8 : BASE_SIZE;
    }

    public static long rmaAddr(MemorySegment h, WireOrder o, int i) {
        return WireOrder.getU64(h, o, rmaIovOffset(h, o) + (long) i * RMA_IOV_SIZE);
    }

    public static long rmaLen(MemorySegment h, WireOrder o, int i) {
        return WireOrder.getU64(h, o, rmaIovOffset(h, o) + (long) i * RMA_IOV_SIZE + 8);
    }

    public static long rmaKey(MemorySegment h, WireOrder o, int i) {
        return WireOrder.getU64(h, o, rmaIovOffset(h, o) + (long) i * RMA_IOV_SIZE + 16);
    }
}
