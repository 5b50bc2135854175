package io.jfabric.provider.shm;

import java.lang.foreign.MemorySegment;

/** A receive buffer the application posted, waiting for a message (pooled, reused). */
final class PostedReceive extends MatchQueue.Entry {
    MemorySegment buffer;
    Object context;
    boolean tagged;
    /** FI_MULTI_RECV: the buffer takes several messages; {@link #used} bytes are taken so far. */
    boolean multi;
    long used;

    void clear() {
        buffer = null;
        context = null;
        multi = false;
        used = 0;
    }
}
