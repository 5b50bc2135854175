package io.jfabric.util;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * A registration in an {@link MrMap} (libfabric's {@code struct ofi_mr} with its {@code fi_mr_attr}).
 * Providers may hang their own per-region state (a native handle, a shm offset) on
 * {@link #providerState}. Closing removes the key from the map at once, so any later remote access
 * through it fails with ENOKEY; an access already past {@link #resolve} when close runs still
 * completes, as in libfabric (the application must not free memory with RMA in flight).
 */
public class UtilMemoryRegion extends UtilFabricObject implements MemoryRegion {
    private final MrMap map;
    private final MemorySegment segment;
    private final long access;
    private final long offset;
    private final long key;
    private final Object context;
    /** Remote addresses start here: the VA with FI_MR_VIRT_ADDR, the registration offset otherwise. */
    private final long base;
    /** Provider-owned slot. */
    public volatile Object providerState;

    UtilMemoryRegion(MrMap map, MemorySegment segment, long access, long offset, long key, Object context) {
        super("memory region (key 0x" + Long.toHexString(key) + ")");
        this.map = map;
        this.segment = segment;
        this.access = access;
        this.offset = offset;
        this.key = key;
        this.context = context;
        this.base = map.virtualAddressing() ? segment.address() : offset;
    }

    @Override
    public long key() {
        return key;
    }

    @Override
    public long access() {
        return access;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long offset() {
        return offset;
    }

    /** The context given at registration. */
    public Object context() {
        return context;
    }

    /** The first remote address of the region (see class comment). */
    public long remoteBase() {
        return base;
    }

    /**
     * Checks a remote access and maps it to the segment: returns the byte offset into {@link #segment()}
     * where {@code len} bytes at remote address {@code addr} start, or -ENOKEY (closed), -EACCES
     * ({@code requested} has bits the registration lacks) or -EINVAL (outside the region, overflow).
     * Allocation-free, never throws.
     */
    public long resolve(long addr, long len, long requested) {
        if (isClosed()) {
            return -Errno.ENOKEY;
        }
        if ((requested & ~access) != 0 || (requested & ~Access.ALL) != 0) {
            return -Errno.EACCES;
        }
        long size = segment.byteSize();
        long off = addr - base;
        // Unsigned compares reject addresses below the base and ranges that wrap around.
        if (len < 0 || Long.compareUnsigned(addr, base) < 0 || Long.compareUnsigned(off, size) > 0
                || Long.compareUnsigned(len, size - off) > 0) {
            return -Errno.EINVAL;
        }
        return off;
    }

    @Override
    protected void doClose() {
        map.remove(this);
    }

    @Override
    public String toString() {
        return "UtilMemoryRegion[key=0x" + Long.toHexString(key) + ", " + segment.byteSize() + "B, access="
                + Access.toString(access) + ", base=0x" + Long.toHexString(base) + "]";
    }
}
