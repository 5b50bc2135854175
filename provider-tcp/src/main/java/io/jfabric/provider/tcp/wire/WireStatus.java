package io.jfabric.provider.tcp.wire;

import io.jfabric.Errno;

/**
 * Reasons a frame from the wire is rejected, as negative codes returned by the decoders.
 *
 * <p>libfabric's tcp provider reports every malformed frame as {@code -FI_EIO} (or {@code -FI_ENOPROTOOPT}
 * for a CM version mismatch) and disables the endpoint. jfabric keeps the same errno for the application
 * ({@link #errno(int)}) but keeps the precise reason so the log and the CQ error say what was wrong
 * ({@link #describe(int)}). Codes are below -1000 so they never collide with an errno.
 */
public final class WireStatus {
    public static final int OK = 0;
    public static final int BAD_CM_VERSION = -1001;
    public static final int UNEXPECTED_CM_TYPE = -1002;
    public static final int CM_DATA_TOO_LARGE = -1003;
    public static final int BAD_ENDIAN_PROBE = -1004;
    public static final int CM_REJECTED = -1005;
    public static final int BAD_VERSION = -1010;
    public static final int UNKNOWN_OP = -1011;
    public static final int UNSUPPORTED_OP = -1012;
    public static final int BAD_HDR_SIZE = -1013;
    public static final int HDR_SIZE_MISMATCH = -1014;
    public static final int SIZE_BELOW_HDR = -1015;
    public static final int OVERSIZED = -1016;
    public static final int BAD_RMA_IOV_COUNT = -1017;
    public static final int BAD_OP_DATA = -1018;
    public static final int BAD_ACK = -1019;
    public static final int UNEXPECTED_PAYLOAD = -1020;
    public static final int RMA_LENGTH_MISMATCH = -1021;
    public static final int BUFFER_TOO_SMALL = -1022;

    private WireStatus() {
    }

    /** True when the code is a rejection reason from this class. */
    public static boolean isWireError(int code) {
        return code <= BAD_CM_VERSION && code >= BUFFER_TOO_SMALL;
    }

    /** The positive libfabric errno an application sees for a rejection reason. */
    public static int errno(int code) {
        return switch (code) {
            case OK -> 0;
            case BAD_CM_VERSION -> Errno.ENOPROTOOPT;
            case CM_REJECTED, UNEXPECTED_CM_TYPE -> Errno.ECONNREFUSED;
            case OVERSIZED, CM_DATA_TOO_LARGE -> Errno.EMSGSIZE;
            case BUFFER_TOO_SMALL -> Errno.EINVAL;
            default -> code < 0 && code > -1000 ? -code : Errno.EIO;
        };
    }

    /** A sentence saying what was wrong with the frame. */
    public static String describe(int code) {
        return switch (code) {
            case OK -> "ok";
            case BAD_CM_VERSION -> "CM header version is not 3 (peer speaks another tcp CM protocol)";
            case UNEXPECTED_CM_TYPE -> "unexpected CM message type";
            case CM_DATA_TOO_LARGE -> "CM data longer than 256 bytes";
            case BAD_ENDIAN_PROBE -> "CM endianness probe (conn_data) is neither 1 nor byte-swapped 1";
            case CM_REJECTED -> "connection rejected by the peer (nack)";
            case BAD_VERSION -> "data header version is not 3";
            case UNKNOWN_OP -> "unknown op in data header";
            case UNSUPPORTED_OP -> "op_tagged is not supported on a MSG endpoint without a shared receive context";
            case BAD_HDR_SIZE -> "hdr_size out of range (16..120, multiple of 8)";
            case HDR_SIZE_MISMATCH -> "hdr_size does not match the op, flags and rma_iov_cnt";
            case SIZE_BELOW_HDR -> "size is smaller than hdr_size";
            case OVERSIZED -> "payload larger than the maximum message size";
            case BAD_RMA_IOV_COUNT -> "rma_iov_cnt above the iov limit of 4";
            case BAD_OP_DATA -> "op_data is neither 0 nor an ACK on op_msg";
            case BAD_ACK -> "ACK frame does not have size 16";
            case UNEXPECTED_PAYLOAD -> "read request carries a payload";
            case RMA_LENGTH_MISMATCH -> "rma iov lengths do not add up to the payload";
            case BUFFER_TOO_SMALL -> "buffer too small for the frame";
            default -> code < 0 && code > -1000 ? "errno " + (-code) : "unknown wire status " + code;
        };
    }
}
