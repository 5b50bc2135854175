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
    private static final long SCRATCH_BYTES = 64 * 1024;

    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;
    private final ShmSplitCopy split;
    /**
     * Native memory a message bound for a heap receive buffer passes through: process_vm_readv reads into this
     * process's memory by address, which heap memory has none of.
     */
    private final MemorySegment scratch;
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
        this.scratch = ep.arena.allocate(SCRATCH_BYTES, 64);
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

    /**
     * Reads bytes {@code [from, to)} of the message into the receive, with one process_vm_readv however many of its
     * buffers that fills, or a slice at a time through {@link #scratch} when one of them is heap memory.
     */
    @Override
    public int copy(long from, long to) {
        long len = to - from;
        int local = localPieces(offset + from, len);
        if (local > 0) {
            ep.cma.remotePiece(0, remote + from, len);
            return ShmIov.cmaStatus(ep.cma.readVector(pid, local, 1));
        }
        for (long done = 0; done < len; ) {
            long c = Math.min(SCRATCH_BYTES, len - done);
            int status = ShmIov.cmaStatus(ep.cma.copy(false, pid, scratch.address(), remote + from + done, c));
            if (status != 0) {
                return status;
            }
            ShmIov.scatter(scratch, 0, dst, offset + from + done, c);
            done += c;
        }
        return 0;
    }

    /**
     * Sets the receive's bytes {@code [at, at + len)} as the local pieces of a vectored read; -1 when CMA cannot name
     * them (heap memory).
     */
    private int localPieces(long at, long len) {
        if (dst instanceof MemorySegment d) {
            if (!d.isNative()) {
                return -1;
            }
            ep.cma.localPiece(0, d.address() + at, len);
            return 1;
        }
        ShmIov v = (ShmIov) dst;
        return ep.cma.localSegments(v.segments, v.count, at, len);
    }

    static long remoteAddress(MemorySegment s, long at) {
        return Wire.getLong(s, at + Wire.ADDRESS);
    }
}
