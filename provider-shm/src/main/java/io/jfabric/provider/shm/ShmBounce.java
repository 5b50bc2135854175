package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;

import java.lang.foreign.MemorySegment;

/**
 * The bounce protocol (messages up to bounce_slot_size): the sender copies the bytes into a slot of
 * its own region's bounce pool and the command names the slot; the receiver copies them out and hands
 * the slot back. A send that asks for a completion gets it once the receiver has consumed the record.
 */
final class ShmBounce {
    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;

    ShmBounce(ShmEndpointState ep, ShmInFlight inFlight) {
        this.ep = ep;
        this.inFlight = inFlight;
    }

    int send(Peer peer, OpRequest req, int len, int wflags, boolean complete, long cqFlags) {
        BouncePool pool = ep.region.bouncePool();
        int slot = pool.acquire(peer.senderId == -1 ? 1 : peer.senderId);
        if (slot < 0) {
            return -Errno.EAGAIN;
        }
        PendingOp op = null;
        if (complete && (op = inFlight.reserveDeferred()) == null) {
            pool.release(slot);
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(Wire.BOUNCE, ShmEndpointState.COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            pool.release(slot);
            inFlight.cancelDeferred(op);
            return ShmCm.full(peer);
        }
        ShmIov.gather(req.iov, req.count, pool.segment(), pool.slotOffset(slot));
        ep.putHeader(r.buffer(), at, req.tag, req.data, wflags, len, 0, slot);
        if (op != null) {
            inFlight.deferUntilConsumed(op, peer, r.endPosition(at), req.context, cqFlags, len);
        }
        r.commit(at);
        peer.doorbell.ring();
        if (op == null) {
            ep.bindings.countTx(cqFlags); // as an untracked inline send
        }
        return 0;
    }

    /** Whether a BOUNCE command from {@code peer} names one of its slots. */
    static boolean validSlot(Peer peer, MemorySegment s, long at) {
        long slot = Wire.getLong(s, at + Wire.ADDRESS);
        return slot >= 0 && slot < peer.region.bouncePool().slotCount();
    }

    /** Receive side: {@code n} bytes from the sender's slot into a receive buffer at {@code offset}; frees the slot. */
    static void copyOut(Peer peer, MemorySegment s, long at, Object dst, long offset, long n) {
        BouncePool pool = peer.region.bouncePool();
        int slot = (int) Wire.getLong(s, at + Wire.ADDRESS);
        ShmIov.scatter(pool.segment(), pool.slotOffset(slot), dst, offset, n);
        pool.release(slot);
    }

    /** Frees the slot of a command that is dropped. */
    static void discard(Peer peer, MemorySegment s, long at) {
        peer.region.bouncePool().release((int) Wire.getLong(s, at + Wire.ADDRESS));
    }
}
