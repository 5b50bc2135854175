package io.jfabric.provider.verbs;

import io.jfabric.util.RegisteredMemory;
import io.jfabric.util.RegisteredRegion;
import io.jfabric.util.UtilMemoryRegion;
import io.jfabric.provider.verbs.ffi.generated.ibv_mr;
import io.jfabric.provider.verbs.ffi.verbs_h;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors libfabric's verbs MR: an {@code ibv_mr}. The key is the rkey (FI_MR_PROV_KEY); peers address
 * the memory by its virtual address (FI_MR_VIRT_ADDR). The lkey is what data-path calls put in their
 * scatter/gather entries.
 */
final class VerbsMemoryRegion implements RegisteredRegion {
    private final VerbsDomain domain;
    private final RegisteredMemory registered;
    /** The one registered segment (ibv_reg_mr covers one range), which posted buffers must lie inside. */
    private final MemorySegment segment;
    private final MemorySegment mr;
    /** The cache entry this region borrows, or null when it owns its registration. */
    private final MrCache.Entry<MemorySegment> cached;
    private final int lkey;
    private final int rkey;
    /** This region's entry in the domain's table of remotely addressable regions, or null (VerbsDomain). */
    private UtilMemoryRegion addressable;
    private boolean closed;

    VerbsMemoryRegion(VerbsDomain domain, MemorySegment segment, long access, long offset, Object context,
                      MemorySegment mrPtr, MrCache.Entry<MemorySegment> cached) {
        this.cached = cached;
        this.domain = domain;
        this.registered = new RegisteredMemory(new MemorySegment[] {segment}, access, offset, context);
        this.segment = segment;
        this.mr = ibv_mr.reinterpret(mrPtr);
        this.lkey = ibv_mr.lkey(mr);
        this.rkey = ibv_mr.rkey(mr);
    }

    int lkey() {
        return lkey;
    }

    VerbsDomain domain() {
        return domain;
    }

    /** Whether {@code buf} lies inside the registered memory. */
    boolean covers(MemorySegment buf) {
        long a = buf.address();
        long base = segment.address();
        return a >= base && a + buf.byteSize() <= base + segment.byteSize();
    }

    @Override
    public long key() {
        return Integer.toUnsignedLong(rkey);
    }

    @Override
    public RegisteredMemory registered() {
        return registered;
    }

    synchronized void addressable(UtilMemoryRegion entry) {
        addressable = entry;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (addressable != null) {
            addressable.close(); // first, so no peer's atomic reaches memory the application may free next
        }
        if (cached != null) {
            domain.releaseCached(cached);
        } else {
            Native.checkVerbs(verbs_h.ibv_dereg_mr(mr), "ibv_dereg_mr");
        }
        closed = true;
        domain.release();
    }

    @Override
    public String toString() {
        return "VerbsMemoryRegion[" + segment.byteSize() + " B @0x" + Long.toHexString(segment.address())
                + ", lkey=0x" + Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + "]";
    }
}
