package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.Wire;

import java.lang.foreign.MemorySegment;

/**
 * The ACKs this endpoint owes its peers (for CMA and pulled messages, and RMA): written straight into
 * the peer's ring, or, while that ring is full or earlier ACKs wait, queued here and retried by
 * progress in order.
 */
final class ShmAckQueue {
    private static final int CAPACITY = 1024;

    private final ShmEndpointState ep;
    private final Peer[] peer = new Peer[CAPACITY];
    private final long[] op = new long[CAPACITY];
    private final int[] status = new int[CAPACITY];
    private int head;
    private int tail;

    ShmAckQueue(ShmEndpointState ep) {
        this.ep = ep;
    }

    /** Tells {@code to} that its operation {@code opId} finished with {@code status} (0 or a positive errno). */
    void send(Peer to, long opId, int st) {
        if (head == tail && write(to, opId, st)) {
            return;
        }
        int next = (tail + 1) % CAPACITY;
        if (next == head) {
            ShmEndpointState.LOG.log(System.Logger.Level.WARNING,
                    "shm endpoint {0}: ACK queue full, dropping an ACK to {1}", ep.address, to.name);
            return;
        }
        peer[tail] = to;
        op[tail] = opId;
        status[tail] = st;
        tail = next;
    }

    boolean isEmpty() {
        return head == tail;
    }

    /** Writes the queued ACKs that now fit; returns how many. */
    int flush() {
        int n = 0;
        while (head != tail) {
            if (!write(peer[head], op[head], status[head])) {
                break;
            }
            peer[head] = null;
            head = (head + 1) % CAPACITY;
            n++;
        }
        return n;
    }

    private boolean write(Peer to, long opId, int st) {
        if (to.gone()) {
            return true; // nobody to tell
        }
        MpscRing r = to.ring;
        long at = r.tryClaim(Wire.ACK, ShmEndpointState.COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            return false;
        }
        MemorySegment s = r.buffer();
        ep.putHeader(s, at, 0, 0, 0, 0, opId, 0);
        Wire.putInt(s, at + Wire.STATUS, st);
        r.commit(at);
        to.doorbell.ring();
        return true;
    }
}
