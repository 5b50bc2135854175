package io.jfabric.provider.libfabric;

import io.jfabric.MemoryRegion;
import io.jfabric.provider.libfabric.ffi.FabricInline;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fid_mr} of a native provider: {@link #key()} is fi_mr_key, and the region
 * passed as {@code desc} reaches the provider as fi_mr_desc's pointer, read once at registration.
 */
final class LibfabricMemoryRegion extends FidObject implements MemoryRegion {
    /** fi_mr_desc. */
    final MemorySegment desc;
    private final long key;
    private final MemorySegment segment;
    private final long access;
    private final long offset;

    LibfabricMemoryRegion(LibfabricDomain domain, MemorySegment fid, MemorySegment segment, long access, long offset) {
        super(domain.fabric, fid);
        hold(domain);
        this.desc = FabricInline.fi_mr_desc(fid);
        this.key = FabricInline.fi_mr_key(fid);
        this.segment = segment;
        this.access = access;
        this.offset = offset;
    }

    /** fi_mr_desc of a region of this provider as the data calls pass it; null when {@code mr} is not one (-EINVAL). */
    static MemorySegment descOf(MemoryRegion mr) {
        if (mr == null) {
            return MemorySegment.NULL;
        }
        return mr instanceof LibfabricMemoryRegion n && !n.isClosed() ? n.desc : null;
    }

    @Override
    String kind() {
        return "memory region";
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
}
