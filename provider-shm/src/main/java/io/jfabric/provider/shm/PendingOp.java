package io.jfabric.provider.shm;

/**
 * A transmit operation that completes only when the peer answers with an ACK: CMA sends and RMA.
 * Pooled in {@link PendingOps}; its id carries a generation so a stale or forged ACK is ignored.
 */
final class PendingOp {
    final int index;
    int generation;
    boolean busy;
    Object context;
    long completionFlags;
    long length;
    long buffer;
    /** The message being pulled through bounce slots (RTS protocol), else null. */
    java.lang.foreign.MemorySegment segment;
    Peer peer;
    boolean reserved;

    PendingOp(int index) {
        this.index = index;
    }

    long id() {
        return ((long) generation << 32) | index;
    }
}
