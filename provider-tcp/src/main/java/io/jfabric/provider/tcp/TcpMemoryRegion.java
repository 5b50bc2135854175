package io.jfabric.provider.tcp;

import io.jfabric.MemoryRegion;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A registered region of the tcp domain ({@code fi_mr_reg}). tcp has no NIC to program: registration only
 * records the key, access and bounds that remote reads and writes are checked against, and keeps one
 * ByteBuffer view through which RMA data is read from and written to the socket without a copy.
 */
final class TcpMemoryRegion implements MemoryRegion {
    private final TcpDomain domain;
    private final MemorySegment segment;
    private final long access;
    private final long offset;
    private final long key;
    private final ByteBuffer view;
    private volatile boolean closed;

    TcpMemoryRegion(TcpDomain domain, MemorySegment segment, long access, long offset, long key) {
        this.domain = domain;
        this.segment = segment;
        this.access = access;
        this.offset = offset;
        this.key = key;
        this.view = segment.asByteBuffer();
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

    ByteBuffer wholeView() {
        return view;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            domain.unregister(this);
        }
    }

    @Override
    public String toString() {
        return "TcpMemoryRegion[key=" + key + ", size=" + segment.byteSize() + "]";
    }
}
