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
     * the range count, or -1 when one is refused ({@link #lastError()}).
     */
    int writeTargets(MemorySegment h, WireOrder o, ByteBuffer[] dst, SegmentView[] slots) {
        int cnt = DataHeader.rmaIovCount(h);
        for (int i = 0; i < cnt; i++) {
            ByteBuffer v = resolve(DataHeader.rmaKey(h, o, i), DataHeader.rmaAddr(h, o, i), DataHeader.rmaLen(h, o, i),
                    Access.REMOTE_WRITE, slots[i]);
            if (v == null) {
                return -1;
            }
            dst[i] = v;
        }
        return cnt;
    }

    /**
     * Fills {@code rsp} with the read response to read request {@code h}: its header and views of the ranges
     * asked for. Returns the bytes it carries, or -1 when a range is refused ({@link #lastError()}).
     */
    long readResponse(MemorySegment h, WireOrder o, TxEntry rsp) {
        int cnt = DataHeader.rmaIovCount(h);
        long total = 0;
        for (int i = 0; i < cnt; i++) {
            long len = DataHeader.rmaLen(h, o, i);
            ByteBuffer v = resolve(DataHeader.rmaKey(h, o, i), DataHeader.rmaAddr(h, o, i), len, Access.REMOTE_READ,
                    rsp.views[i]);
            if (v == null) {
                return -1;
            }
            rsp.bufs[1 + i] = v;
            total += len;
        }
        rsp.kind = TxEntry.KIND_INTERNAL;
        int hl = DataHeader.encodeReadRsp(rsp.hdr, o, total);
        rsp.hdrView.clear().limit(hl);
        rsp.bufs[0] = rsp.hdrView;
        rsp.bufCount = 1 + cnt;
        rsp.remaining = hl + total;
        return total;
    }

    /** The view, or null with {@link #lastError()} / {@link #lastReason()} set. */
    ByteBuffer resolve(long key, long addr, long len, long access, SegmentView slot) {
        UtilMemoryRegion mr = registry.find(key);
        long off = mr == null ? -Errno.ENOKEY : mr.resolve(addr, len, access);
        if (off < 0) {
            lastError = (int) -off;
            lastKey = key;
            lastAccess = access;
            return null;
        }
        return slot.of(mr, off, len);
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
