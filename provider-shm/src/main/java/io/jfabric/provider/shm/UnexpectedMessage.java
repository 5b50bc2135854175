package io.jfabric.provider.shm;

import java.lang.foreign.MemorySegment;

/**
 * The shm part of a message that arrived before a matching receive (the payload of a
 * {@link io.jfabric.util.TagMatcher.Unexpected}, which holds tag, source, length, CQ data and wire
 * flags). Inline and bounce data are copied into {@link #buffer} (so the ring and the sender's slot
 * are freed at once); a CMA or RTS message keeps only the sender's address and op, and the sender
 * waits for its ACK until a receive takes it. Pooled, one per unexpected-queue slot.
 */
final class UnexpectedMessage {
    final MemorySegment buffer;
    int type;
    Peer peer;
    /** The endpoint the message arrived on, which delivers it (a shared receive context's queue holds several). */
    ShmRecv owner;
    /** The sender's id, to find its fi_addr if the AV learns it after the message came. */
    long senderId;
    long opId;
    long remoteAddress;

    UnexpectedMessage(MemorySegment buffer) {
        this.buffer = buffer;
    }

    void clear() {
        peer = null;
        owner = null;
    }
}
