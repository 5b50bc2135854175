package io.jfabric.provider.shm;

import java.lang.foreign.MemorySegment;

/**
 * A transmit operation that completes only when the peer answers with an ACK (CMA and pulled sends,
 * and RMA), or, for an inline or bounce send that asked for a completion, when the peer's ring head has
 * passed its record ({@link #ringEnd}).
 * Pooled in {@link PendingOps}; its id carries a generation so a stale or forged ACK is ignored.
 */
final class PendingOp {
    final int index;
    int generation;
    boolean busy;
    Object context;
    long completionFlags;
    long length;
    /** The buffers of a message the receiver pulls through bounce slots (RTS protocol); empty otherwise. */
    final ShmIov source = new ShmIov();
    Peer peer;
    boolean reserved;
    /** An RMA's target address and key, for the err_data of a refusal. */
    long rmaAddr;
    long rmaKey;
    /** Inline/bounce sends: the peer-ring position past the record, else -1 (the op waits for an ACK). */
    long ringEnd = -1;
    /**
     * The native buffers of a CMA send or an RMA, which the receiver or target may ask this side to copy half of
     * (ShmSplitCopy): a send's or RMA write's sources ({@link #cmaWrites}), an RMA read's sinks; empty otherwise.
     */
    final ShmIov cmaBuffers = new ShmIov();
    /** Whether the peer's half is written from {@link #cmaBuffers} (a send, an RMA write) or read into them. */
    boolean cmaWrites;
    /** A fetch or compare atomic's result buffers, filled when the target's ATOMIC_RESULT arrives. */
    final MemorySegment[] results = new MemorySegment[ShmIov.LIMIT];
    int resultCount;

    PendingOp(int index) {
        this.index = index;
    }

    long id() {
        return ((long) generation << 32) | index;
    }
}
