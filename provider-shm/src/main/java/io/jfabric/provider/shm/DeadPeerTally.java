package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.util.jfr.PeerFailureEvent;

/**
 * The operations one liveness scan failed, per dead peer, so that the scan emits one jfabric.PeerFailure per
 * peer with its count rather than one per operation. Counts nothing (and allocates nothing) unless the event
 * is recorded.
 */
final class DeadPeerTally {
    private Peer[] peers = new Peer[4];
    private int[] counts = new int[4];
    private int size;
    private boolean recording;

    /** Starts a scan. */
    void begin() {
        recording = PeerFailureEvent.isRecorded();
    }

    /** One operation to {@code peer} failed because the peer is dead. */
    void failed(Peer peer) {
        if (!recording) {
            return;
        }
        for (int i = 0; i < size; i++) {
            if (peers[i] == peer) {
                counts[i]++;
                return;
            }
        }
        if (size == peers.length) {
            peers = java.util.Arrays.copyOf(peers, size * 2);
            counts = java.util.Arrays.copyOf(counts, size * 2);
        }
        peers[size] = peer;
        counts[size++] = 1;
    }

    /** Ends a scan: one event per dead peer it failed operations to. */
    void emit() {
        for (int i = 0; i < size; i++) {
            Peer p = peers[i];
            PeerFailureEvent.emit("shm", ShmAv.SCHEME + p.name, Errno.ECONNRESET, counts[i],
                    "process " + p.pid + " exited or closed its endpoint");
            peers[i] = null;
        }
        size = 0;
    }
}
