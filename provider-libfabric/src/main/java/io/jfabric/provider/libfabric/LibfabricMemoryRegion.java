package io.jfabric.provider.libfabric;

import io.jfabric.Counter;
import io.jfabric.Endpoint;
import io.jfabric.MemoryRegion;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.util.RegisteredMemory;
import io.jfabric.util.RegisteredRegion;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fid_mr} of a native provider: {@link #key()} is fi_mr_key, and the region
 * passed as {@code desc} reaches the provider as fi_mr_desc's pointer, read once at registration.
 * {@link #bind(Endpoint, long)} and {@link #enable()} are fi_mr_bind and fi_mr_enable, so a native provider
 * with FI_MR_ENDPOINT (cxi) can be driven; a provider without it answers them with its own error (ENOSYS).
 */
final class LibfabricMemoryRegion extends FidObject implements RegisteredRegion {
    /** fi_mr_desc. */
    final MemorySegment desc;
    /** fi_mr_key, read again after fi_mr_enable: with FI_MR_ENDPOINT a provider may assign the key only then. */
    private volatile long key;
    private final RegisteredMemory registered;

    LibfabricMemoryRegion(LibfabricDomain domain, MemorySegment fid, MemorySegment[] segments, long access,
                          long offset, Object context) {
        super(domain.fabric, fid);
        hold(domain);
        this.desc = FabricInline.fi_mr_desc(fid);
        this.key = FabricInline.fi_mr_key(fid);
        this.registered = new RegisteredMemory(segments, access, offset, context);
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
    public void bind(Endpoint endpoint, long flags) {
        bindFid(endpoint, flags, "endpoint");
    }

    @Override
    public void bind(Counter counter, long flags) {
        bindFid(counter, flags, "counter");
    }

    private void bindFid(Object target, long flags, String what) {
        checkOpen();
        int rc = FabricInline.fi_bind(fid, fidOf(target, what), flags);
        ReturnCodes.check(rc, "fi_mr_bind of a " + what, "bind regions only on a domain whose mr_mode has "
                + "FI_MR_ENDPOINT (or FI_MR_RMA_EVENT for counters), to an object of the same domain");
        hold((FidObject) target);
    }

    @Override
    public void enable() {
        checkOpen();
        int rc = FabricInline.fi_enable(fid);
        ReturnCodes.check(rc, "fi_mr_enable", "bind the region to its endpoint first (FI_MR_ENDPOINT)");
        key = FabricInline.fi_mr_key(fid);
    }

    @Override
    public long key() {
        return key;
    }

    @Override
    public RegisteredMemory registered() {
        return registered;
    }
}
