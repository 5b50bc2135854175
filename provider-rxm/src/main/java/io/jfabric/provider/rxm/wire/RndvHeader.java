package io.jfabric.provider.rxm.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Accessors for libfabric's {@code struct rxm_rndv_hdr}: four {@code ofi_rma_iov {u64 addr, len, key}}
 * and a u8 count, padded to 104 bytes. It follows the 64-byte {@link RxmPacket} header in a
 * rndv_req (the sender's registered buffers) and in a rndv_wr_data (the receiver's, write variant).
 * {@code addr} is the virtual address when the core's mr_mode has FI_MR_VIRT_ADDR, else the offset
 * into the region (0 for a whole-buffer registration).
 */
public final class RndvHeader {
    public static final int SIZE = 104;
    public static final int IOV_LIMIT = 4;
    private static final int COUNT_OFFSET = IOV_LIMIT * 24;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    private RndvHeader() {
    }

    public static void setIov(MemorySegment h, int i, long addr, long len, long key) {
        long o = i * 24L;
        h.set(U64, o, addr);
        h.set(U64, o + 8, len);
        h.set(U64, o + 16, key);
    }

    public static void setCount(MemorySegment h, int count) {
        h.set(ValueLayout.JAVA_BYTE, COUNT_OFFSET, (byte) count);
        for (long o = COUNT_OFFSET + 1; o < SIZE; o++) {
            h.set(ValueLayout.JAVA_BYTE, o, (byte) 0);
        }
    }

    public static int count(MemorySegment h) {
        return h.get(ValueLayout.JAVA_BYTE, COUNT_OFFSET) & 0xFF;
    }

    public static long addr(MemorySegment h, int i) {
        return h.get(U64, i * 24L);
    }

    public static long len(MemorySegment h, int i) {
        return h.get(U64, i * 24L + 8);
    }

    public static long key(MemorySegment h, int i) {
        return h.get(U64, i * 24L + 16);
    }

    /** Sum of the iov lengths; -1 when count is out of range (a bad packet). */
    public static long totalLength(MemorySegment h) {
        int n = count(h);
        if (n < 1 || n > IOV_LIMIT) {
            return -1;
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            long len = len(h, i);
            if (len < 0 || (total += len) < 0) {
                return -1; // a length of 2^63 or more, or lengths whose sum wraps: a forged header
            }
        }
        return total;
    }
}
