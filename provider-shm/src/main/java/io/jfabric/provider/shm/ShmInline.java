package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;

import java.lang.foreign.MemorySegment;

/**
 * The inline protocol (messages up to inline_size, libfabric's smr inline): the bytes travel inside the
 * ring command, so the receiver copies them straight out of its ring. A send that asks for a completion
 * gets it once the receiver has consumed the record.
 */
final class ShmInline {
    private final ShmEndpointState ep;
    private final ShmInFlight inFlight;

    ShmInline(ShmEndpointState ep, ShmInFlight inFlight) {
        this.ep = ep;
        this.inFlight = inFlight;
    }

    int send(Peer peer, OpRequest req, int len, int wflags, boolean complete, long cqFlags) {
        PendingOp op = null;
        if (complete && (op = inFlight.reserveDeferred()) == null) {
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        int recordLength = Wire.recordPayload(Wire.INLINE_HEADER + len);
        long position = r.claim(recordLength);
        if (position == MpscRing.FULL) {
            inFlight.cancelDeferred(op);
            return ShmCm.full(peer);
        }
        long at = r.payloadOffset(position);
        MemorySegment s = r.buffer();
        // the payload first, then the command header and the ring header right behind it: the record's first
        // line, which the receiver polls, is written in one burst with the position last (MpscRing.claim)
        if (req.count == 1) {
            // one buffer, the usual case, copied here: C2 counts MaxInlineLevel from the application's loop,
            // and the copy's own chain inside the JDK is deep enough to hit it through one level more
            MemorySegment.copy(req.iov[0], 0, s, at + Wire.INLINE_HEADER, len);
        } else {
            ShmIov.gather(req.iov, req.count, s, at + Wire.INLINE_HEADER);
        }
        Wire.putLong(s, at + Wire.SENDER, ep.senderId);
        Wire.putLong(s, at + Wire.TAG, req.tag);
        Wire.putLong(s, at + Wire.DATA, req.data);
        Wire.putInt(s, at + Wire.FLAGS, wflags);
        Wire.putInt(s, at + Wire.INLINE_LENGTH, len);
        if (op != null) {
            inFlight.deferUntilConsumed(op, peer, MpscRing.endOf(position, recordLength), req.context, cqFlags, len);
        }
        r.publish(position, Wire.INLINE, recordLength);
        peer.doorbell.ring();
        if (op == null) {
            ep.bindings.countTx(cqFlags); // nothing tracks it further: it counts when sent, as libfabric's shm does
        }
        return 0;
    }

    /** Receive side: the message's bytes ({@code n} of them) into a receive buffer at {@code offset}. */
    static void copyOut(MemorySegment s, long at, Object dst, long offset, long n) {
        ShmIov.scatter(s, at + Wire.INLINE_HEADER, dst, offset, n);
    }
}
