package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;
import io.jfabric.util.TagMatcher;

import java.lang.foreign.MemorySegment;

/**
 * The pull protocol (RTS, PULL, CHUNK), libfabric's SAR protocol turned receiver-driven, for large
 * messages CMA cannot carry (no CMA to the peer, a heap buffer, several buffers): the sender announces
 * the message (RTS) and keeps its buffers; the receiver asks for a window of chunks (PULL), the sender
 * copies each into one of its bounce slots (CHUNK), the receiver copies it out and asks for the next,
 * and ACKs the whole message at the end. Both sides live here.
 */
final class ShmPull {
    /** Chunk requests a receiver keeps outstanding per message. */
    private static final int WINDOW = 4;
    private static final int RETRY_QUEUE = 1024;

    /** A receive being filled by pulling. */
    private static final class Pull {
        final int index;
        int generation;
        boolean busy;
        TagMatcher.Recv receive;
        Peer peer;
        long senderOp;
        long length;
        /** Where the message starts in the receive's buffer: its slice's offset in a multi-receive buffer, else 0. */
        long base;
        /** Bytes the receive takes (less than length when truncated). */
        long wanted;
        long requested;
        long received;
        int outstanding;
        boolean blocked;
        long data;
        int wireFlags;
        long tag;
        long srcAddr;

        Pull(int index) {
            this.index = index;
        }

        long id() {
            return ((long) generation << 32) | index;
        }
    }

    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;
    private final ShmAckQueue acks;
    private final ShmCm cm;
    private final ShmRecv recv;

    // receiver side: receives being pulled
    private Pull[] pulls;
    private int[] free;
    private int freeCount;
    private int active;
    /** Pulls waiting for ring space to ask for more chunks: the progress scan runs only while there are some. */
    private int blockedCount;

    // sender side: chunk requests this sender could not serve yet (no slot or no ring space), in order
    private final Peer[] retryPeer = new Peer[RETRY_QUEUE];
    private final long[] retryOp = new long[RETRY_QUEUE];
    private final long[] retryCookie = new long[RETRY_QUEUE];
    private final long[] retryOffset = new long[RETRY_QUEUE];
    private final long[] retryLength = new long[RETRY_QUEUE];
    private int retryHead;
    private int retryTail;
    /** Sender side: chunks copied into bounce slots for receivers, for diagnostics and tests. */
    long chunksServed;
    /** Receiver side: times a pull found the sender's ring full and waited for progress, for diagnostics and tests. */
    long pullsBlocked;

    /** {@code rxSize}: one pull per posted receive; a multi-receive buffer may take more, and the pool grows. */
    ShmPull(ShmEndpointState ep, ShmInFlight inFlight, ShmAckQueue acks, ShmCm cm, ShmRecv recv, int rxSize) {
        this.ep = ep;
        this.inFlight = inFlight;
        this.acks = acks;
        this.cm = cm;
        this.recv = recv;
        pulls = new Pull[rxSize];
        free = new int[rxSize];
        for (int i = 0; i < rxSize; i++) {
            pulls[i] = new Pull(i);
            free[i] = rxSize - 1 - i;
        }
        freeCount = rxSize;
    }

    int active() {
        return active;
    }

    // ---- sender side -----------------------------------------------------------------------------

    int send(Peer peer, OpRequest req, long len, int wflags, boolean complete, long cqFlags) {
        return inFlight.announce(Wire.RTS, peer, req, len, wflags, complete, cqFlags);
    }

    /** The receiver asks for a chunk of a message it is pulling. */
    boolean onPull(MemorySegment s, long at) {
        Peer peer = cm.sender(s, at);
        long opId = Wire.getLong(s, at + Wire.OP_ID);
        long cookie = Wire.getLong(s, at + Wire.KEY);
        long offset = Wire.getLong(s, at + Wire.ADDRESS);
        long len = Wire.getLong(s, at + Wire.LENGTH);
        PendingOp op = inFlight.find(opId);
        if (peer == null || op == null || op.source.count == 0 || op.peer != peer || len <= 0 || len > ep.slotSize
                || offset < 0 || offset > op.length - len) {
            return ep.dropCorrupt(Wire.PULL, (int) len);
        }
        if (retryHead != retryTail || !serveChunk(peer, op, cookie, offset, len)) {
            queueRetry(peer, opId, cookie, offset, len);
        }
        return true;
    }

    private boolean serveChunk(Peer peer, PendingOp op, long cookie, long offset, long len) {
        BouncePool pool = ep.region.bouncePool();
        int slot = pool.acquire(peer.senderId == -1 ? 1 : peer.senderId);
        if (slot < 0) {
            return false;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(Wire.CHUNK, ShmEndpointState.COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            pool.release(slot);
            return false;
        }
        op.source.copyTo(offset, pool.segment(), pool.slotOffset(slot), len);
        ep.putHeader(r.buffer(), at, offset, 0, 0, len, cookie, slot);
        r.commit(at);
        peer.doorbell.ring();
        chunksServed++;
        return true;
    }

    private void queueRetry(Peer peer, long opId, long cookie, long offset, long len) {
        int next = (retryTail + 1) % RETRY_QUEUE;
        if (next == retryHead) {
            ShmEndpointState.LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: pull retry queue full",
                    ep.address);
            return;
        }
        retryPeer[retryTail] = peer;
        retryOp[retryTail] = opId;
        retryCookie[retryTail] = cookie;
        retryOffset[retryTail] = offset;
        retryLength[retryTail] = len;
        retryTail = next;
    }

    boolean hasRetries() {
        return retryHead != retryTail;
    }

    int flushRetries() {
        int n = 0;
        while (retryHead != retryTail) {
            PendingOp op = inFlight.find(retryOp[retryHead]);
            if (op != null && op.source.count != 0 && !retryPeer[retryHead].gone()
                    && !serveChunk(retryPeer[retryHead], op, retryCookie[retryHead], retryOffset[retryHead],
                    retryLength[retryHead])) {
                break; // still no slot or ring space; keep order
            }
            retryPeer[retryHead] = null;
            retryHead = (retryHead + 1) % RETRY_QUEUE;
            n++;
        }
        return n;
    }

    // ---- receiver side ---------------------------------------------------------------------------

    /** A receive matched an RTS: pull {@code n} of the message's {@code len} bytes into it. */
    void start(TagMatcher.Recv r, Peer peer, long senderOp, long len, long n, long data, int wflags, long tag,
               long srcAddr) {
        if (freeCount == 0) {
            grow(); // only a multi-receive buffer takes more than one
        }
        Pull p = pulls[free[--freeCount]];
        // a multi-receive buffer's slice is taken now, so that the messages after this one land after it
        p.base = r.isMultiRecv() ? recv.takeSlice(r, n) : 0;
        p.busy = true;
        p.generation++;
        active++;
        p.receive = r;
        p.peer = peer;
        p.senderOp = senderOp;
        p.length = len;
        p.wanted = n;
        p.requested = 0;
        p.received = 0;
        p.outstanding = 0;
        p.data = data;
        p.wireFlags = wflags;
        p.tag = tag;
        p.srcAddr = srcAddr;
        if (n == 0) {
            finish(p, 0);
            return;
        }
        requestChunks(p);
    }

    /** Keeps up to WINDOW chunk requests outstanding. */
    private void requestChunks(Pull p) {
        while (p.requested < p.wanted && p.outstanding < WINDOW) {
            long chunk = Math.min(ep.slotSize, p.wanted - p.requested);
            MpscRing r = p.peer.ring;
            long at = r.tryClaim(Wire.PULL, ShmEndpointState.COMMAND_RECORD);
            if (at == MpscRing.FULL) {
                setBlocked(p, true);
                return;
            }
            MemorySegment s = r.buffer();
            ep.putHeader(s, at, 0, 0, 0, chunk, p.senderOp, p.requested);
            Wire.putLong(s, at + Wire.KEY, p.id());
            r.commit(at);
            p.peer.doorbell.ring();
            p.requested += chunk;
            p.outstanding++;
        }
        setBlocked(p, false);
    }

    private void setBlocked(Pull p, boolean blocked) {
        if (p.blocked != blocked) {
            p.blocked = blocked;
            blockedCount += blocked ? 1 : -1;
            if (blocked) {
                pullsBlocked++;
            }
        }
    }

    /** Asks again for the chunks of pulls that found the sender's ring full; how many it tried. */
    int resumeBlocked() {
        int n = 0;
        // the pool has a pull per posted receive (1,024 by default): scanning it on every progress call while a
        // message streams in cost a tenth of a busy loop's time
        for (int i = 0, left = blockedCount; i < pulls.length && left > 0; i++) {
            Pull p = pulls[i];
            if (p.blocked) {
                left--;
                requestChunks(p);
                n++;
            }
        }
        return n;
    }

    /** A chunk arrived in one of the sender's slots. */
    boolean onChunk(MemorySegment s, long at, int length) {
        long cookie = Wire.getLong(s, at + Wire.OP_ID);
        int index = (int) cookie;
        Pull p = index >= 0 && index < pulls.length ? pulls[index] : null;
        long sender = Wire.getLong(s, at + Wire.SENDER);
        if (p == null || !p.busy || p.generation != (int) (cookie >>> 32) || p.peer.senderId != sender) {
            return ep.dropCorrupt(Wire.CHUNK, length);
        }
        long offset = Wire.getLong(s, at + Wire.TAG);
        long len = Wire.getLong(s, at + Wire.LENGTH);
        long slotIndex = Wire.getLong(s, at + Wire.ADDRESS);
        BouncePool pool = p.peer.region.bouncePool();
        if (slotIndex < 0 || slotIndex >= pool.slotCount() || len <= 0 || len > ep.slotSize || offset < 0
                || offset > p.wanted - len) {
            return ep.dropCorrupt(Wire.CHUNK, length);
        }
        ShmIov.scatter(pool.segment(), pool.slotOffset((int) slotIndex), p.receive.buffer, p.base + offset, len);
        pool.release((int) slotIndex);
        p.received += len;
        p.outstanding--;
        if (p.received >= p.wanted) {
            finish(p, 0);
        } else {
            requestChunks(p);
        }
        return true;
    }

    private void finish(Pull p, int status) {
        acks.send(p.peer, p.senderOp, status);
        long n = status == 0 ? p.wanted : p.received;
        if (p.receive.isMultiRecv()) {
            recv.completeSlice(p.receive, p.base, status, p.length, n, p.data, p.wireFlags, p.tag, p.srcAddr,
                    p.peer.senderId);
        } else {
            recv.finishReceive(p.receive, status, p.length, n, p.data, p.wireFlags, p.tag, p.srcAddr,
                    p.peer.senderId);
        }
        p.busy = false;
        setBlocked(p, false);
        p.receive = null;
        p.peer = null;
        free[freeCount++] = p.index;
        active--;
    }

    /** Doubles the pool: a multi-receive buffer took as many pulls as there are posted receives. */
    private void grow() {
        int old = pulls.length;
        pulls = java.util.Arrays.copyOf(pulls, old * 2);
        free = java.util.Arrays.copyOf(free, old * 2);
        for (int i = old; i < pulls.length; i++) {
            pulls[i] = new Pull(i);
            free[freeCount++] = i;
        }
    }

    /** Fails the pulls from a sender that died. */
    int failToDeadPeers(long now, DeadPeerTally tally) {
        int n = 0;
        for (int i = 0; i < pulls.length && active > 0; i++) {
            Pull p = pulls[i];
            if (p.busy && p.peer.checkAlive(now, ShmEndpointState.LIVENESS_INTERVAL)) {
                tally.failed(p.peer);
                finish(p, Errno.ECONNRESET);
                n++;
            }
        }
        return n;
    }

    /** Endpoint close: every pull ends cancelled. */
    void cancelAll() {
        for (Pull p : pulls) {
            if (p.busy) {
                finish(p, Errno.ECANCELED);
            }
        }
    }
}
