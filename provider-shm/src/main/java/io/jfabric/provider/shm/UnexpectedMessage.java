package io.jfabric.provider.shm;

import java.lang.foreign.MemorySegment;

/**
 * A message that arrived before a matching receive. Inline and bounce data are copied into
 * {@link #buffer} (so the ring and the sender's slot are freed at once); a CMA message keeps only the
 * sender's address, and the sender waits for its ACK until a receive takes it.
 */
final class UnexpectedMessage extends MatchQueue.Entry {
    final MemorySegment buffer;
    int type;
    boolean tagged;
    long sender;
    Peer peer;
    long data;
    int wireFlags;
    long length;
    long opId;
    long remoteAddress;

    UnexpectedMessage(MemorySegment buffer) {
        this.buffer = buffer;
    }

    void clear() {
        peer = null;
    }
}
