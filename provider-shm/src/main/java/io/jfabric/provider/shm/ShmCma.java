package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;

import java.lang.foreign.MemorySegment;

/**
 * The CMA protocol (larger messages from one native buffer, when the peer can reach this process with
 * cross-memory attach): the command carries the sender's buffer address; the receiver copies it with
 * process_vm_readv into the matched receive buffer and ACKs, and the send completes on the ACK. A large one is
 * split ({@link ShmSplitCopy}) when its second half lands in one native receive buffer.
 */
final class ShmCma implements ShmSplitCopy.Halves {
    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;
    private final ShmSplitCopy split;
    // the message being received, which the split copy calls back into
    private int pid;
    private long remote;
    private Object dst;
    private long offset;
    private long n;

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
     * {@code remote}) into a receive buffer ({@code dst}: a segment or an ShmIov) at {@code offset}, a large one
     * with the sender's help (ShmSplitCopy). Returns 0 or a positive errno.
     */
    int copyOut(Peer peer, long senderOp, long remote, Object dst, long offset, long n) {
        if (n == 0) {
            return 0;
        }
        this.pid = peer.pid;
        this.remote = remote;
        this.dst = dst;
        this.offset = offset;
        this.n = n;
        int status = split.copy(peer, senderOp, n, this);
        this.dst = null;
        return status;
    }

    /** When bytes {@code [at, n)} of the message land in one native receive buffer, its address of byte {@code at}. */
    @Override
    public long contiguousFrom(long at) {
        long from = offset + at;
        long end = offset + n;
        if (dst instanceof MemorySegment d) {
            return d.isNative() ? d.address() + from : 0;
        }
        ShmIov v = (ShmIov) dst;
        for (int i = 0; i < v.count; i++) {
            MemorySegment s = v.segments[i];
            long size = s.byteSize();
            if (from < size) {
                return end <= size && s.isNative() ? s.address() + from : 0;
            }
            from -= size;
            end -= size;
        }
        return 0;
    }

    @Override
    public int copy(long from, long to) {
        return ShmIov.cmaRead(ep.cma, pid, remote + from, dst, offset + from, to - from);
    }

    static long remoteAddress(MemorySegment s, long at) {
        return Wire.getLong(s, at + Wire.ADDRESS);
    }
}
