package io.jfabric.conformance.xmatrix;

import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.lang.foreign.MemorySegment;

/**
 * The initiator's side of the writedata burst cell: {@link #COUNT} 64-byte writes with CQ data, no more than
 * half its CQ in flight (fi_cq(3) sizing). A target that pushes back while it does not read its CQ (jfabric's
 * tcp and rxm take CQ data only into a receive-CQ slot promised to it; libfabric queues it on an overflow
 * list) stalls the posts; then the init step ends with the rest pending, and the peer's idle loop and the
 * finish step post them once the target's verify step reads its CQ.
 */
final class MatrixBurst {
    static final int COUNT = 3 * MatrixNode.CQ_SIZE;
    static final int LEN = 64;
    /** How long the init step waits on a target that takes nothing before it leaves the rest pending. */
    static final long STALL_NS = 1_000_000_000L;

    private final MatrixNode n;
    private final Object context;
    private int next = COUNT;
    private long seed;

    MatrixBurst(MatrixNode node, Object context) {
        this.n = node;
        this.context = context;
    }

    /** The init step: posts from the first write until all are posted or the target stalls them. */
    void start(long seed, long deadline) {
        MatrixOps.fill(n.txArea.asSlice(0, (long) COUNT * LEN), seed);
        this.seed = seed;
        next = 0;
        post(deadline, STALL_NS);
    }

    /** The idle loop: posts what the endpoint takes now, without waiting. */
    void resume() {
        if (next < COUNT) {
            post(Long.MAX_VALUE, 0);
        }
    }

    /** The finish step: posts the rest, waiting for room until the deadline. */
    void complete(long deadline) {
        post(deadline, Long.MAX_VALUE);
    }

    private void post(long deadline, long stallNs) {
        long lastPosted = System.nanoTime();
        while (next < COUNT) {
            int rc = -Errno.EAGAIN;
            if (next - n.tx.size() < MatrixNode.CQ_SIZE / 2) {
                MemorySegment m = n.txArea.asSlice((long) next * LEN, LEN);
                long off = (long) next * LEN;
                rc = n.ep.writedata(m, n.mr, seed + next, n.peer, n.remoteAddr + off, n.remoteKey, context);
            }
            if (rc == 0) {
                next++;
                lastPosted = System.nanoTime();
                continue;
            }
            if (rc != -Errno.EAGAIN) {
                throw new FabricException(-rc, "fi_writedata #" + next + " returned " + Errno.name(-rc));
            }
            n.pump();
            long now = System.nanoTime();
            if (now - lastPosted >= stallNs) {
                return;
            }
            if (now > deadline) {
                throw new FabricException(Errno.ETIMEDOUT, "fi_writedata #" + next + " still returned FI_EAGAIN at"
                        + " the deadline (" + (next - n.tx.size()) + " in flight)");
            }
        }
    }
}
