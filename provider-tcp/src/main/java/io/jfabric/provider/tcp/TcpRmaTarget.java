package io.jfabric.provider.tcp;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.util.MrMap;
import io.jfabric.util.UtilMemoryRegion;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The target side of RMA (libfabric tcp's remote write and read-request handling): turns the (key, address,
 * length) ranges of a peer's write or read request into views of registered memory, after checking through
 * {@link UtilMemoryRegion#resolve} that the key exists, grants the access and covers the range
 * ({@code ofi_mr_map_verify}: ENOKEY, EACCES, EINVAL), and remembers why the last check failed for the error
 * that closes the connection.
 *
 * <p>Not thread-safe per connection; the registry behind it is.
 */
final class TcpRmaTarget {
    private final MrMap registry;
    private int lastError;
    private long lastKey;
    private long lastAccess;

    TcpRmaTarget(MrMap registry) {
        this.registry = registry;
    }

    /**
     * Places a remote write's ranges (header {@code h}) in {@code dst}, viewed through {@code slots}; returns
     * the number of views, or -1 when a range is refused ({@link #lastError()}). A range of a multi-segment
     * region takes one view per segment it touches.
     */
    int writeTargets(MemorySegment h, WireOrder o, ByteBuffer[] dst, SegmentView[] slots) {
        int cnt = DataHeader.rmaIovCount(h);
        int views = 0;
        for (int i = 0; i < cnt; i++) {
            views = place(DataHeader.rmaKey(h, o, i), DataHeader.rmaAddr(h, o, i), DataHeader.rmaLen(h, o, i),
                    Access.REMOTE_WRITE, dst, 0, slots, views);
            if (views < 0) {
                return -1;
            }
        }
        return views;
    }

    /**
     * Fills {@code rsp} with the read response to read request {@code h}: its header and views of the ranges
     * asked for. Returns the bytes it carries, or -1 when a range is refused ({@link #lastError()}).
     */
    long readResponse(MemorySegment h, WireOrder o, TxEntry rsp) {
        int cnt = DataHeader.rmaIovCount(h);
        long total = 0;
        int views = 0;
        for (int i = 0; i < cnt; i++) {
            long len = DataHeader.rmaLen(h, o, i);
            views = place(DataHeader.rmaKey(h, o, i), DataHeader.rmaAddr(h, o, i), len, Access.REMOTE_READ,
                    rsp.bufs, 1, rsp.views, views);
            if (views < 0) {
                return -1;
            }
            total += len;
        }
        rsp.kind = TxEntry.KIND_INTERNAL;
        int hl = DataHeader.encodeReadRsp(rsp.hdr, o, total);
        rsp.hdrView.clear().limit(hl);
        rsp.bufs[0] = rsp.hdrView;
        rsp.bufCount = 1 + views;
        rsp.remaining = hl + total;
        return total;
    }

    /**
     * Checks one range and puts its views at {@code dst[at + n]} through {@code slots[n]}, from {@code n} =
     * {@code used} on; returns the views used so far, or -1 with {@link #lastError()} set. A range that
     * spans more segments than {@code slots} has room for is refused with EINVAL (E2BIG is not an fi_rma
     * error).
     */
    private int place(long key, long addr, long len, long access, ByteBuffer[] dst, int at, SegmentView[] slots,
                      int used) {
        UtilMemoryRegion mr = registry.find(key);
        long off = mr == null ? -Errno.ENOKEY : mr.resolve(addr, len, access);
        if (off < 0) {
            return refuse((int) -off, key, access);
        }
        if (mr.segmentCount() == 1) {
            if (used == slots.length) {
                return refuse(Errno.EINVAL, key, access);
            }
            dst[at + used] = slots[used].of(mr, 0, off, len);
            return used + 1;
        }
        int seg = mr.segmentIndex(off);
        do {
            if (used == slots.length) {
                return refuse(Errno.EINVAL, key, access);
            }
            long inSeg = off - mr.segmentStart(seg);
            long piece = Math.min(len, mr.segment(seg).byteSize() - inSeg);
            dst[at + used] = slots[used].of(mr, seg, inSeg, piece);
            used++;
            seg++;
            off += piece;
            len -= piece;
        } while (len > 0);
        return used;
    }

    private int refuse(int errno, long key, long access) {
        lastError = errno;
        lastKey = key;
        lastAccess = access;
        return -1;
    }

    /** errno of the last refusal (EACCES, EINVAL, ENOKEY...). */
    int lastError() {
        return lastError;
    }

    String lastReason() {
        return Errno.name(lastError) + " for key 0x" + Long.toHexString(lastKey) + " (" + Access.toString(lastAccess)
                + ")";
    }
}
