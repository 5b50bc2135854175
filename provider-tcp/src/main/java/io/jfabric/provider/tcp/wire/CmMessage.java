package io.jfabric.provider.tcp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Encoder and decoder of the connection-management message: a 32-byte {@code ofi_ctrl_hdr} followed by up to
 * 256 bytes of application CM data.
 *
 * <p>Mirrors {@code struct tcpx_cm_msg} of libfabric 1.17 ({@code prov/tcp/src/tcpx.h}, {@code include/ofi_proto.h}):
 * <pre>
 *  0 u8  version   (3)          1 u8 type (connreq 0, connresp 1, nack 6)
 *  2 u16 seg_size  (CM data length, network order)
 *  4 u32 seg_no    8 u64 conn_id   16 u64 msg_id   (all 0)
 * 24 u64 conn_data (1 in the sender's host order: the endianness probe)
 * </pre>
 * jfabric endpoints announce themselves to each other in the three fields libfabric leaves 0 and never reads
 * ({@link #announceSameHost}): seg_no holds the pid, conn_id a token and msg_id {@code "JF"} in its top 16 bits
 * over the token's address (see {@code io.jfabric.util.SameHostToken}).
 *
 * <p>Differences from libfabric: a CM data length above 256 is rejected ({@link WireStatus#CM_DATA_TOO_LARGE})
 * where libfabric silently truncates, and a probe that is neither 1 nor byte-swapped 1 is rejected where
 * libfabric assumes "swap". All methods work on caller-owned segments and allocate nothing.
 */
public final class CmMessage {
    public static final int VERSION = 3;
    public static final int HEADER_SIZE = 32;
    public static final int MAX_DATA_SIZE = 256;
    public static final int MAX_SIZE = HEADER_SIZE + MAX_DATA_SIZE;

    public static final int TYPE_CONNREQ = 0;
    public static final int TYPE_CONNRESP = 1;
    public static final int TYPE_NACK = 6;

    private static final long OFF_VERSION = 0;
    private static final long OFF_TYPE = 1;
    private static final long OFF_SEG_SIZE = 2;
    private static final long OFF_SEG_NO = 4;
    private static final long OFF_CONN_ID = 8;
    private static final long OFF_MSG_ID = 16;
    private static final long OFF_CONN_DATA = 24;
    /** "JF" in the top 16 bits of msg_id; user-space addresses leave them 0. */
    private static final long SAME_HOST_MAGIC = 0x4A46L << 48;
    private static final long ADDRESS_MASK = (1L << 48) - 1;

    private static final ValueLayout.OfInt U32_HOST =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final ValueLayout.OfShort U16_BE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64_HOST =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final long PROBE = 1L;
    private static final long PROBE_SWAPPED = Long.reverseBytes(1L);

    private CmMessage() {
    }

    /**
     * Writes a CM message at offset 0 of {@code dst}.
     *
     * @param data CM data, or null for none
     * @param dataLength bytes of {@code data} to send (0..256)
     * @return the total number of bytes to send, or a negative {@link WireStatus}
     */
    public static int encode(MemorySegment dst, int type, MemorySegment data, long dataLength) {
        if (dataLength < 0 || dataLength > MAX_DATA_SIZE || (dataLength > 0 && (data == null || data.byteSize() < dataLength))) {
            return WireStatus.CM_DATA_TOO_LARGE;
        }
        int total = HEADER_SIZE + (int) dataLength;
        if (dst.byteSize() < total) {
            return WireStatus.BUFFER_TOO_SMALL;
        }
        dst.asSlice(0, HEADER_SIZE).fill((byte) 0);
        dst.set(ValueLayout.JAVA_BYTE, OFF_VERSION, (byte) VERSION);
        dst.set(ValueLayout.JAVA_BYTE, OFF_TYPE, (byte) type);
        dst.set(U16_BE, OFF_SEG_SIZE, (short) dataLength);
        dst.set(U64_HOST, OFF_CONN_DATA, PROBE);
        if (dataLength > 0) {
            MemorySegment.copy(data, 0, dst, HEADER_SIZE, dataLength);
        }
        return total;
    }

    /**
     * Validates the 32-byte header at offset 0 of {@code src}.
     *
     * @param expectedType the type this side waits for; a nack is accepted only when waiting for a connresp
     * @return the CM data length that follows (0..256), or a negative {@link WireStatus}
     */
    public static int decodeHeader(MemorySegment src, int expectedType) {
        if (src.byteSize() < HEADER_SIZE) {
            return WireStatus.BUFFER_TOO_SMALL;
        }
        if (Byte.toUnsignedInt(src.get(ValueLayout.JAVA_BYTE, OFF_VERSION)) != VERSION) {
            return WireStatus.BAD_CM_VERSION;
        }
        int type = type(src);
        if (type != expectedType && !(type == TYPE_NACK && expectedType == TYPE_CONNRESP)) {
            return WireStatus.UNEXPECTED_CM_TYPE;
        }
        int dataLength = dataLength(src);
        if (dataLength > MAX_DATA_SIZE) {
            return WireStatus.CM_DATA_TOO_LARGE;
        }
        long probe = src.get(U64_HOST, OFF_CONN_DATA);
        if (probe != PROBE && probe != PROBE_SWAPPED) {
            return WireStatus.BAD_ENDIAN_PROBE;
        }
        return dataLength;
    }

    /** Adds this process's same-host announcement to an encoded message (fields libfabric leaves 0). */
    public static void announceSameHost(MemorySegment dst, long pid, long tokenAddress, long token) {
        dst.set(U32_HOST, OFF_SEG_NO, (int) pid);
        dst.set(U64_HOST, OFF_CONN_ID, token);
        dst.set(U64_HOST, OFF_MSG_ID, SAME_HOST_MAGIC | (tokenAddress & ADDRESS_MASK));
    }

    /** The announced pid, or 0 when the sender announced nothing (libfabric) or its address does not fit. */
    public static long sameHostPid(MemorySegment src) {
        long m = src.get(U64_HOST, OFF_MSG_ID);
        return (m & ~ADDRESS_MASK) == SAME_HOST_MAGIC ? Integer.toUnsignedLong(src.get(U32_HOST, OFF_SEG_NO)) : 0;
    }

    public static long sameHostTokenAddress(MemorySegment src) {
        return src.get(U64_HOST, OFF_MSG_ID) & ADDRESS_MASK;
    }

    public static long sameHostToken(MemorySegment src) {
        return src.get(U64_HOST, OFF_CONN_ID);
    }

    /** The message type byte. */
    public static int type(MemorySegment src) {
        return Byte.toUnsignedInt(src.get(ValueLayout.JAVA_BYTE, OFF_TYPE));
    }

    /** The announced CM data length (network-order {@code seg_size}), not validated. */
    public static int dataLength(MemorySegment src) {
        return Short.toUnsignedInt(src.get(U16_BE, OFF_SEG_SIZE));
    }

    /** True when the sender's endianness probe reads as 1 in this host's order. Valid after a successful decode. */
    public static boolean peerSameEndianness(MemorySegment src) {
        return src.get(U64_HOST, OFF_CONN_DATA) == PROBE;
    }

    /** The data-header order to use with the sender of this (validated) CM message. */
    public static WireOrder peerOrder(MemorySegment src) {
        return WireOrder.forPeer(peerSameEndianness(src));
    }
}
