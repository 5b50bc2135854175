package io.jfabric.provider.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One reusable {@link ByteBuffer} view of a caller's native segment, so that NIO's gathering writes and
 * scattering reads touch the caller's memory directly (zero copy) without creating a view per operation.
 *
 * <p>{@link MemorySegment#asByteBuffer()} allocates, so views of native segments are borrowed from the
 * connection's {@link ViewCache} (keyed by address, size and scope) and kept while the next segment is the
 * same one. Each slot belongs to one queue entry, so two in-flight operations never share a view's
 * position. A heap segment always gets a fresh view (its address is not comparable), which the provider
 * documents as a copy path. No equivalent in libfabric, where an iovec is just a pointer.
 */
final class SegmentView {
    private final ViewCache cache;
    private MemorySegment segment;
    private io.jfabric.util.UtilMemoryRegion region;
    /** Which of {@link #region}'s segments the view shows. */
    private int regionSegment;
    private ByteBuffer view;
    /** The cache slot this view is borrowed from, or -1 for a private view. */
    private int slot = -1;

    SegmentView(ViewCache cache) {
        this.cache = cache;
    }

    /** A view of all of {@code s}, position 0, limit its size. */
    ByteBuffer of(MemorySegment s) {
        MemorySegment cached = segment;
        if (view == null || cached == null || !s.isNative() || cached.address() != s.address()
                || cached.byteSize() != s.byteSize() || !cached.scope().equals(s.scope())
                || !cached.scope().isAlive()) {
            giveBack();
            if (s.isNative() && (slot = cache.lend(s)) >= 0) {
                view = cache.view(slot);
            } else {
                view = s.asByteBuffer();
            }
            segment = s;
            region = null;
        }
        view.clear();
        return view;
    }

    private void giveBack() {
        if (slot >= 0) {
            cache.giveBack(slot);
            slot = -1;
        }
    }

    /** A view of {@code len} bytes at {@code offset} of segment {@code index} of a registered region. */
    ByteBuffer of(io.jfabric.util.UtilMemoryRegion mr, int index, long offset, long len) {
        if (view == null || region != mr || regionSegment != index) {
            giveBack();
            // a region's view is lent like any other, so entries switching regions allocate nothing
            MemorySegment whole = mr.segment(index);
            if (whole.isNative() && (slot = cache.lend(whole)) >= 0) {
                view = cache.view(slot);
            } else {
                view = ((ByteBuffer[]) mr.providerState)[index].duplicate();
            }
            region = mr;
            regionSegment = index;
            segment = null;
        }
        view.clear();
        view.position((int) offset);
        view.limit((int) (offset + len));
        return view;
    }

    /**
     * The native address of the current view's position, for a gathering write(2) that bypasses NIO; 0 when
     * the view is private (heap segment, cache full) or its memory was closed.
     */
    long address() {
        if (slot < 0 || view == null) {
            return 0;
        }
        long base = cache.liveAddress(slot);
        return base == 0 ? 0 : base + view.position();
    }

    /** True when {@code b} is this object's current view. */
    boolean owns(ByteBuffer b) {
        return b != null && b == view;
    }

    /** Drops the cached view (on close) so no dead memory stays referenced. */
    void clear() {
        giveBack();
        segment = null;
        region = null;
        view = null;
    }
}
