package io.jfabric.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

import java.lang.foreign.MemorySegment;

/**
 * A composite buffer's leading readable bytes as segments over its components, so that a frame made of pieces of
 * several buffers (an HTTP/2 DATA frame that straddles two of gRPC's messages) is gathered in place, one iov entry
 * per piece, instead of copied. Component views come from {@link CompositeByteBuf#internalComponent}, which each
 * component makes once and keeps.
 */
final class CompositeParts {
    private CompositeParts() {
    }

    /**
     * Puts segments over the first {@code n} readable bytes of {@code c} into {@code iov} from index {@code at},
     * one per component they touch, and returns how many; 0 when they touch more than {@code maxParts} components
     * or one without a memory address (the entries written so far are then unused).
     */
    static int fill(CompositeByteBuf c, int n, int maxParts, MemorySegment[] iov, int at, PayloadViews views) {
        int from = c.readerIndex();
        int end = from + n;
        int parts = 0;
        for (int i = c.toComponentIndex(from); from < end; i++) {
            ByteBuf part = c.internalComponent(i);
            int start = c.toByteIndex(i);
            int len = Math.min(end, start + part.readableBytes()) - from;
            if (len > 0) {
                if (parts == maxParts || !part.hasMemoryAddress()) {
                    return 0;
                }
                iov[at + parts++] = views.at(part.memoryAddress() + part.readerIndex() + (from - start), len);
                from += len;
            }
        }
        return parts;
    }
}
