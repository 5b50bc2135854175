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
public class UtilMemoryRegion extends UtilFabricObject implements RegisteredRegion {
    private final MrMap map;
    /** The segments (fi_mr_regv: usually one), access, offset and context. */
    private final RegisteredMemory registered;
    /** The registered segments in the order peers address them (the array {@link #registered} holds). */
    private final MemorySegment[] segments;
    /** Byte offset of each segment within the concatenation; the region's length at the end. */
    private final long[] starts;
    private final long length;
    private final long access;
    private final long key;
    /** Remote addresses start here: the VA with FI_MR_VIRT_ADDR, the registration offset otherwise. */
    private final long base;
    /** Provider-owned slot. */
    public volatile Object providerState;

    /** {@code segments} is the region's own array (a copy of the caller's iov), non-empty, no nulls. */
    UtilMemoryRegion(MrMap map, MemorySegment[] segments, long access, long offset, long key, Object context) {
        super("memory region (key 0x" + Long.toHexString(key) + ")");
        this.map = map;
        this.registered = new RegisteredMemory(segments, access, offset, context);
        this.segments = segments;
        this.starts = new long[segments.length + 1];
        for (int i = 0; i < segments.length; i++) {
            starts[i + 1] = Math.addExact(starts[i], segments[i].byteSize());
        }
        this.length = starts[segments.length];
        this.access = access;
        this.key = key;
        this.base = map.virtualAddressing() ? segments[0].address() : offset;
    }

    @Override
    public RegisteredMemory registered() {
        return registered;
    }

    @Override
    public long key() {
        return key;
    }

    @Override
    public long length() {
        return length;
    }

    /** How many segments the region covers. */
    public int segmentCount() {
        return segments.length;
    }

    /** Segment {@code index} of the region, in address order. */
    public MemorySegment segment(int index) {
        return segments[index];
    }

    /** Where segment {@code index} starts in the concatenation that peers address (bytes). */
    public long segmentStart(int index) {
        return starts[index];
    }

    /**
     * The segment holding byte {@code offset} of the concatenation (an offset from {@link #resolve}); the last
     * segment for {@code offset == length()}, so an empty access at the end still has a segment. A linear scan:
     * regions have at most mr_iov_limit segments.
     */
    public int segmentIndex(long offset) {
        int last = segments.length - 1;
        int i = 0;
        while (i < last && offset >= starts[i + 1]) {
            i++;
        }
        return i;
    }

    /** The first remote address of the region (see class comment). */
    public long remoteBase() {
        return base;
    }

    /**
     * Checks a remote access and maps it to the memory: returns the byte offset into the concatenation of the
     * region's segments (for one segment, into {@link #segment()}) where {@code len} bytes at remote address
     * {@code addr} start, or -ENOKEY (closed), -EACCES ({@code requested} has bits the registration lacks) or
     * -EINVAL (outside the region, overflow). With several segments, {@link #segmentIndex} and
     * {@link #segmentStart} split the range. Allocation-free, never throws.
     */
    public long resolve(long addr, long len, long requested) {
        if (isClosed()) {
            return -Errno.ENOKEY;
        }
        if ((requested & ~access) != 0 || (requested & ~Access.ALL) != 0) {
            return -Errno.EACCES;
        }
        long size = length;
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
        return "UtilMemoryRegion[key=0x" + Long.toHexString(key) + ", " + length + "B in " + segments.length
                + " segment(s), access="
                + Access.toString(access) + ", base=0x" + Long.toHexString(base) + "]";
    }
}
