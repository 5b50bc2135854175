package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.provider.shm.wire.RegionLayout;
import io.jfabric.provider.shm.wire.Wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * Large CMA messages and RMA copies made by both processes at once, both sides of it. For an RMA, "receiver" below
 * is the target, which has checked the range, and "sender" the initiator; an RMA read's data flows the other way, so
 * its target writes the first half into the initiator's buffer and offers it the second half to read.
 *
 * <p>A CMA message is one process_vm_readv by its receiver, while its sender, waiting for the completion as a ping-pong
 * or a request-response exchange does, spins idle on the other core. For a message of FI_SHM_SPLIT_COPY_MIN bytes or
 * more the receiver offers the sender the second half: it publishes the offer in one of its region's split-copy words,
 * sends a PUSH command and reads the first half itself. A sender whose progress takes the PUSH while the offer stands
 * claims the word (OFFERED to WRITING), writes its half into the receive buffer with process_vm_writev and marks the
 * word DONE, or FAILED. Once the receiver has read its half it withdraws the offer (OFFERED to TAKEN) and reads the
 * second half as well when the sender had not started; when the sender is writing, it waits for that write, which is no
 * longer than its own read was. So a receiver never waits for a sender that is not progressing, nothing the sender
 * writes lands after the receive has completed, and a 1 MiB message is two half copies on two cores at once instead of
 * one. The offer names one run of the receiver's memory, so the second half must be one ({@link Halves}): it lands in
 * one receive buffer, or one stretch of the target's region; otherwise the receiver copies it all.
 *
 * <p>A word holds a ticket (the offer's number, so that a late PUSH for an earlier offer cannot claim a later one)
 * and a state in its low three bits. Only the receiver's progress offers and withdraws, under its endpoint's lock.
 */
final class ShmSplitCopy {

    private static final long OFFERED = 1;
    private static final long WRITING = 2;
    private static final long DONE = 3;
    private static final long FAILED = 4;
    private static final long TAKEN = 5;
    private static final long STATE = 7;
    /** How long a receiver waits for a live sender that is mid-write before it fails the receive. */
    private static final long WRITE_WAIT_LIMIT = TimeUnit.SECONDS.toNanos(10);
    private static final int SPINS_PER_CHECK = 1024;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;
    private final ShmCm cm;
    /** This endpoint's region, whose split-copy words its senders claim. */
    private final MemorySegment words;
    /** The smallest message split (FI_SHM_SPLIT_COPY_MIN); below it the offer costs more than half a copy saves. */
    private final long min;
    /** Bit i set: word i is free for an offer. */
    private int freeWords = -1;
    private long tickets;
    private final OneRange oneRange = new OneRange();
    /** Receiver or RMA target side: second halves the peer copied. */
    long halvesCopiedByPeer;
    /** Sender or RMA initiator side: halves this endpoint copied for its receivers and targets. */
    long halvesCopiedForPeers;

    ShmSplitCopy(ShmEndpointState ep, ShmInFlight inFlight, ShmCm cm) {
        this.ep = ep;
        this.inFlight = inFlight;
        this.cm = cm;
        this.words = ep.region.segment();
        this.min = ep.domain.splitCopyMin;
    }

    private static long wordAt(int word) {
        return RegionLayout.SPLIT_WORDS_OFFSET + (long) word * RegionLayout.SPLIT_WORD_STRIDE;
    }

    // ---- receiver side ---------------------------------------------------------------------------

    /**
     * One side's view of an operation's bytes for a split copy: where they are in our memory, and how to copy a run
     * of them between our memory and the peer's.
     */
    interface Halves {
        /**
         * The address in our memory of byte {@code offset} of the operation when bytes {@code [offset, n)} are one
         * contiguous run there (so that the peer can copy them with one remote piece), else 0.
         */
        long contiguousFrom(long offset);

        /** Copies bytes {@code [from, to)} of the operation; 0 or a positive errno. */
        int copy(long from, long to);
    }

    /**
     * Copies {@code n} bytes between the native {@code local} at {@code offset} and the peer's buffer at
     * {@code remote}: into {@code local} ({@code out} false: an RMA write) or out of it (an RMA read), the peer
     * copying the second half itself if it comes to it in time. Returns 0 or a positive errno.
     */
    int copy(boolean out, Peer peer, long peerOp, long remote, MemorySegment local, long offset, long n) {
        oneRange.set(out, peer.pid, local.address() + offset, remote);
        return copy(peer, peerOp, n, oneRange);
    }

    /**
     * Copies the {@code n} bytes of the peer's operation {@code peerOp} through {@code halves}, the peer copying the
     * second half itself if it comes to it in time; {@code halves} copies it all when {@code n} is under
     * FI_SHM_SPLIT_COPY_MIN, the second half is not one run of our memory, or no offer can be made. Returns 0 or a
     * positive errno.
     */
    int copy(Peer peer, long peerOp, long n, Halves halves) {
        if (n < min) {
            return halves.copy(0, n);
        }
        long half = (n >>> 1) & -4096L;
        long to = halves.contiguousFrom(half);
        int word = Integer.numberOfTrailingZeros(freeWords);
        long offer = ((tickets + 1) << 3) | OFFERED;
        if (to == 0 || word >= RegionLayout.SPLIT_WORDS || !offer(peer, peerOp, word, offer, half, n - half, to)) {
            return halves.copy(0, n);
        }
        tickets++;
        freeWords &= ~(1 << word);
        int status = halves.copy(0, half);
        long outcome = settle(peer, wordAt(word), offer);
        freeWords |= 1 << word;
        if (outcome == DONE) {
            halvesCopiedByPeer++;
            return status;
        }
        if (outcome != TAKEN && outcome != FAILED) {
            return Errno.ECONNRESET; // the sender died mid-write, or never finished it
        }
        return status != 0 ? status : halves.copy(half, n);
    }

    /** A one-buffer RMA's bytes: one run in our memory against one in the peer's. */
    private final class OneRange implements Halves {
        private boolean out;
        private int pid;
        private long local;
        private long remote;

        void set(boolean out, int pid, long local, long remote) {
            this.out = out;
            this.pid = pid;
            this.local = local;
            this.remote = remote;
        }

        @Override
        public long contiguousFrom(long offset) {
            return local + offset;
        }

        @Override
        public int copy(long from, long to) {
            return ShmIov.cmaStatus(ep.cma.copy(out, pid, local + from, remote + from, to - from));
        }
    }

    /**
     * Publishes the offer in {@code word} and sends the PUSH naming our memory at {@code to}; false when the
     * sender's ring has no room.
     */
    private boolean offer(Peer peer, long senderOp, int word, long offer, long offset, long len, long to) {
        LONG.setRelease(words, wordAt(word), offer);
        MpscRing r = peer.ring;
        long at = r.tryClaim(Wire.PUSH, ShmEndpointState.COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            LONG.setRelease(words, wordAt(word), 0L);
            return false;
        }
        MemorySegment s = r.buffer();
        ep.putHeader(s, at, offer, to, 0, len, senderOp, offset);
        Wire.putLong(s, at + Wire.KEY, word);
        r.commit(at);
        peer.doorbell.ring();
        return true;
    }

    /**
     * Withdraws the offer, or waits for the sender that claimed it to finish writing. Returns TAKEN (the second
     * half is the receiver's to read), DONE, FAILED (the sender could not write it: the receiver reads it), or 0
     * when the sender died or stayed mid-write past the limit.
     */
    private long settle(Peer peer, long at, long offer) {
        if (LONG.compareAndSet(words, at, offer, (offer & ~STATE) | TAKEN)) {
            return TAKEN;
        }
        long deadline = 0;
        for (int spins = 1; ; spins++) {
            long v = (long) LONG.getAcquire(words, at);
            if ((v & STATE) != WRITING) {
                return (v & STATE) == DONE ? DONE : FAILED;
            }
            if (spins % SPINS_PER_CHECK == 0) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + WRITE_WAIT_LIMIT;
                } else if (peer.checkAlive(now, 0) || now - deadline > 0) {
                    return 0;
                }
            }
            Thread.onSpinWait();
        }
    }

    // ---- sender side -----------------------------------------------------------------------------

    /**
     * A receiver offers this sender part of a CMA message or RMA write to write into its memory, or an RMA target
     * part of a read to read out of its memory.
     */
    boolean onPush(MemorySegment s, long at) {
        Peer peer = cm.sender(s, at);
        long offer = Wire.getLong(s, at + Wire.TAG);
        long to = Wire.getLong(s, at + Wire.DATA);
        long offset = Wire.getLong(s, at + Wire.ADDRESS);
        long len = Wire.getLong(s, at + Wire.LENGTH);
        long word = Wire.getLong(s, at + Wire.KEY);
        if (peer == null || word < 0 || word >= RegionLayout.SPLIT_WORDS || (offer & STATE) != OFFERED || len <= 0
                || offset < 0) {
            return ep.dropCorrupt(Wire.PUSH, Wire.HEADER);
        }
        PendingOp op = inFlight.find(Wire.getLong(s, at + Wire.OP_ID));
        if (op == null || op.peer != peer || op.cmaBuffers.count == 0 || offset > op.length - len) {
            return true; // no CMA send or RMA of ours to that peer in flight: the offer is withdrawn
        }
        MemorySegment theirs = peer.region.segment();
        long wordAt = wordAt((int) word);
        if (!LONG.compareAndSet(theirs, wordAt, offer, (offer & ~STATE) | WRITING)) {
            return true; // withdrawn already
        }
        int pieces = ep.cma.localSegments(op.cmaBuffers.segments, op.cmaBuffers.count, offset, len);
        int status = Errno.EFAULT;
        if (pieces > 0) {
            ep.cma.remotePiece(0, to, len);
            status = ShmIov.cmaStatus(ep.cma.vector(op.cmaWrites, peer.pid, pieces, 1));
        }
        LONG.setRelease(theirs, wordAt, (offer & ~STATE) | (status == 0 ? DONE : FAILED));
        if (status == 0) {
            halvesCopiedForPeers++;
        }
        return true;
    }
}
