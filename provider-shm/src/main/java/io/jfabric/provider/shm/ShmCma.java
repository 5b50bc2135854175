package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;

import java.lang.foreign.MemorySegment;

/**
 * The CMA protocol (larger messages from one native buffer, when the peer can reach this process with
 * cross-memory attach): the command carries the sender's buffer address; the receiver copies it with
 * process_vm_readv into the matched receive buffer and ACKs, and the send completes on the ACK.
 */
final class ShmCma {
    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;
    private final ShmSplitCopy split;

    ShmCma(ShmEndpointState ep, ShmInFlight inFlight, ShmSplitCopy split) {
        this.ep = ep;
        this.inFlight = inFlight;
        this.split = split;
    }

    /** Whether CMA can carry this send: a peer CMA reaches, and one native buffer (the command names one). */
    static boolean fits(Peer peer, OpRequest req) {
        return peer.cmaWorks && req.count == 1 && req.iov[0].isNative();
    }

    int send(Peer peer, OpRequest req, long len, int wflags, boolean complete, long cqFlags) {
        return inFlight.announce(Wire.CMA, peer, req, len, wflags, complete, cqFlags);
    }

    /**
     * Receive side: {@code n} bytes of the sender's buffer named by the command (or by a queued message,
     * {@code remote}) into a receive buffer at {@code offset}, a large one into one native buffer with the
     * sender's help (ShmSplitCopy). Returns 0 or a positive errno.
     */
    int copyOut(Peer peer, long senderOp, long remote, Object dst, long offset, long n) {
        if (split.splits(n, dst)) {
            return split.copy(false, peer, senderOp, remote, (MemorySegment) dst, offset, n);
        }
        return n == 0 ? 0 : ShmIov.cmaRead(ep.cma, peer.pid, remote, dst, offset, n);
    }

    static long remoteAddress(MemorySegment s, long at) {
        return Wire.getLong(s, at + Wire.ADDRESS);
    }
}
