package io.jfabric.netty;

import java.lang.foreign.MemorySegment;

/**
 * Segments over the memory that in-place sends read, kept by address and length. The provider API takes one
 * MemorySegment per buffer, and making one for each send would allocate on the data path; a buffer sent again from
 * the same place with the same length (a pooled run the allocator hands out again, an application's fixed buffer, a
 * lent receive slot echoed back) reuses the segment made the first time. A miss costs one segment and replaces the
 * entry it hashes to. The segments are plain views of global scope, so an entry outliving its memory is harmless:
 * it is only ever handed out again for that same address and length.
 *
 * <p>One per loop domain; loop thread only.
 */
final class PayloadViews {
    /** Entries: 2^9, more than the sends a loop's channels keep in flight at once. */
    private static final int BITS = 9;

    private final MemorySegment[] views = new MemorySegment[1 << BITS];

    /** A segment of {@code length} bytes at {@code address}. */
    MemorySegment at(long address, long length) {
        // buffers lie at multiples of large powers of two, whose low bits are all alike: Fibonacci hashing takes
        // the product's high bits instead
        int i = (int) (((address + 31 * length) * 0x9E3779B97F4A7C15L) >>> (Long.SIZE - BITS));
        MemorySegment view = views[i];
        if (view == null || view.address() != address || view.byteSize() != length) {
            view = MemorySegment.ofAddress(address).reinterpret(length);
            views[i] = view;
        }
        return view;
    }
}
