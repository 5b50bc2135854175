package io.jfabric.provider.tcp;

import io.jfabric.Access;
import io.jfabric.util.MrMap;
import io.jfabric.util.UtilMemoryRegion;

import java.nio.ByteBuffer;

/**
 * One connection's view of the domain's {@link MrMap}: checks key, access and bounds through
 * {@link UtilMemoryRegion#resolve} ({@code ofi_mr_map_verify}: ENOKEY, EACCES, EINVAL) and remembers why the
 * last check failed, for the error that closes the connection.
 */
final class EndpointRmaTarget implements RmaTarget {
    private final MrMap registry;
    private int lastError;
    private long lastKey;
    private long lastAccess;

    EndpointRmaTarget(MrMap registry) {
        this.registry = registry;
    }

    @Override
    public ByteBuffer resolve(long key, long addr, long len, long access, SegmentView slot) {
        UtilMemoryRegion mr = registry.find(key);
        long off = mr == null ? -io.jfabric.Errno.ENOKEY : mr.resolve(addr, len, access);
        if (off < 0) {
            lastError = (int) -off;
            lastKey = key;
            lastAccess = access;
            return null;
        }
        return slot.of(mr, off, len);
    }

    @Override
    public int lastError() {
        return lastError;
    }

    @Override
    public String lastReason() {
        return io.jfabric.Errno.name(lastError) + " for key 0x" + Long.toHexString(lastKey) + " ("
                + Access.toString(lastAccess) + ")";
    }
}
