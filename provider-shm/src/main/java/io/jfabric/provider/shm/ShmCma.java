package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;

import java.lang.foreign.MemorySegment;

/**
 * The CMA protocol (larger messages from native buffers, when the peer can reach this process with cross-memory
 * attach): the command names the sender's buffer, or up to {@link ShmIov#LIMIT} of them ({@link Wire#FLAG_VECTOR});
 * the receiver copies them with one process_vm_readv into the matched receive buffers and ACKs, and the send
 * completes on the ACK.
 */
final class ShmCma {
    /** The longest CMA command: the header and the most buffers a message names. */
    static final int VECTOR_RECORD =
            Wire.recordPayload(Wire.CMA_VECTOR_ENTRIES + ShmIov.LIMIT * Wire.CMA_VECTOR_ENTRY);

    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;
    private final ShmSplitCopy split;

    ShmCma(ShmEndpointState ep, ShmInFlight inFlight, ShmSplitCopy split) {
        this.ep = ep;
        this.inFlight = inFlight;
        this.split = split;
    }

    /** Whether CMA can carry this send: a peer CMA reaches, and native buffers only (the command names them). */
    static boolean fits(Peer peer, OpRequest req) {
        if (!peer.cmaWorks) {
            return false;
        }
        for (int i = 0; i < req.count; i++) {
            if (!req.iov[i].isNative()) {
                return false;
            }
        }
        return true;
    }

    int send(Peer peer, OpRequest req, long len, int wflags, boolean complete, long cqFlags) {
        return inFlight.announce(Wire.CMA, peer, req, len, req.count > 1 ? wflags | Wire.FLAG_VECTOR : wflags,
                complete, cqFlags);
    }

    /** The record length of the CMA command for a send from {@code count} buffers. */
    static int recordLength(int count) {
        return count == 1 ? ShmEndpointState.COMMAND_RECORD
                : Wire.recordPayload(Wire.CMA_VECTOR_ENTRIES + count * Wire.CMA_VECTOR_ENTRY);
    }

    /** Lists a vector send's buffers after its command's header. */
    static void encode(OpRequest req, MemorySegment s, long at) {
        Wire.putInt(s, at + Wire.CMA_VECTOR_COUNT, req.count);
        long e = at + Wire.CMA_VECTOR_ENTRIES;
        for (int i = 0; i < req.count; i++, e += Wire.CMA_VECTOR_ENTRY) {
            Wire.putLong(s, e, req.iov[i].address());
            Wire.putLong(s, e + 8, req.iov[i].byteSize());
        }
    }

    /**
     * Reads the sender's buffers that CMA command {@code length} bytes long at {@code at} names, a message of
     * {@code len} bytes, into {@code pieces} as (address, length) pairs.
     *
     * @return how many, or -1 for a command whose list is malformed (too long for its record, or not adding up)
     */
    static int pieces(MemorySegment s, long at, int length, long len, long[] pieces) {
        if ((Wire.getInt(s, at + Wire.FLAGS) & Wire.FLAG_VECTOR) == 0) {
            pieces[0] = Wire.getLong(s, at + Wire.ADDRESS);
            pieces[1] = len;
            return 1;
        }
        if (length < Wire.CMA_VECTOR_ENTRIES) {
            return -1;
        }
        int count = Wire.getInt(s, at + Wire.CMA_VECTOR_COUNT);
        if (count < 1 || count > ShmIov.LIMIT || Wire.CMA_VECTOR_ENTRIES + count * Wire.CMA_VECTOR_ENTRY > length) {
            return -1;
        }
        long sum = 0;
        for (int i = 0; i < count; i++) {
            long e = at + Wire.CMA_VECTOR_ENTRIES + (long) i * Wire.CMA_VECTOR_ENTRY;
            long n = Wire.getLong(s, e + 8);
            if (n < 0 || n > len) {
                return -1; // checked one by one, so that lengths which wrap around cannot add up to len
            }
            pieces[2 * i] = Wire.getLong(s, e);
            pieces[2 * i + 1] = n;
            sum += n;
        }
        return sum == len ? count : -1;
    }

    /**
     * Receive side: {@code n} bytes of the sender's {@code count} buffers ({@code pieces}, as {@link #pieces} reads
     * them) into a receive buffer at {@code offset}; a large message from one buffer into one native buffer with
     * the sender's help (ShmSplitCopy). Returns 0 or a positive errno.
     */
    int copyOut(Peer peer, long senderOp, long[] pieces, int count, Object dst, long offset, long n) {
        if (count == 1 && split.splits(n, dst)) {
            return split.read(peer, senderOp, pieces[0], (MemorySegment) dst, offset, n);
        }
        return n == 0 ? 0 : ShmIov.cmaRead(ep.cma, peer.pid, pieces, count, dst, offset, n);
    }
}
