package io.jfabric.examples.rpc;

import io.jfabric.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * A registered native segment that peers may read or write with RMA: Mercury's hg_bulk_t over one
 * segment. {@link #describe} writes what a peer needs (remote address, length, key and the owner's
 * address) into an RPC's input; {@link #release} deregisters it, after which RMA through that
 * descriptor fails at the peer.
 */
public final class BulkHandle implements AutoCloseable {
    private final RpcEngine engine;
    private final MemorySegment segment;
    private volatile MemoryRegion mr;

    BulkHandle(RpcEngine engine, MemorySegment segment, MemoryRegion mr) {
        this.engine = engine;
        this.segment = segment;
        this.mr = mr;
    }

    public MemorySegment segment() {
        return segment;
    }

    public long length() {
        return segment.byteSize();
    }

    public boolean isReleased() {
        return mr == null;
    }

    MemoryRegion region() {
        return mr;
    }

    /** Fills {@code out} (reused) with this handle's descriptor. */
    public BulkDescriptor describe(BulkDescriptor out) {
        MemoryRegion r = mr;
        if (r == null) {
            throw new IllegalStateException("bulk handle was released; create a new one to describe");
        }
        return out.set(engine.resources().remoteBase(r), segment.byteSize(), r.key(), engine.selfAddress());
    }

    /** Deregisters the memory; idempotent. The segment itself stays the caller's. */
    public void release() {
        MemoryRegion r;
        synchronized (this) {
            r = mr;
            mr = null;
        }
        if (r != null) {
            r.close();
        }
    }

    @Override
    public void close() {
        release();
    }
}
