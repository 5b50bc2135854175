package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.provider.shm.wire.Wire;

import java.lang.foreign.MemorySegment;

/**
 * The peers of one endpoint (shm has no connections; a peer's region is mapped on AV insert or on its
 * first command): which peer a command came from, and what a full ring means, a slow peer or a dead one.
 */
final class ShmCm {
    private final ShmEndpointState ep;
    /** The last sender seen, so the receive path rarely touches the domain's maps. */
    private long lastSender = -1;
    private Peer lastSenderPeer;

    ShmCm(ShmEndpointState ep) {
        this.ep = ep;
    }

    /** The sender id encoded in a region name {@code jfabric-shm-<pid>-<start>-<seq>}, or -1. */
    static long senderIdOf(String name) {
        if (!name.startsWith(ShmRegion.PREFIX)) {
            return -1;
        }
        String[] parts = name.substring(ShmRegion.PREFIX.length()).split("-");
        if (parts.length != 3) {
            return -1;
        }
        try {
            return Wire.senderId(Long.parseLong(parts[0]), Integer.parseInt(parts[2]));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The peer named by a command's sender field, mapped on first use; null if it is gone. */
    Peer sender(MemorySegment s, long at) {
        return sender(Wire.getLong(s, at + Wire.SENDER));
    }

    Peer sender(long id) {
        if (id == lastSender) {
            return lastSenderPeer;
        }
        Peer p = ep.domain.peerBySender(id);
        lastSender = id;
        lastSenderPeer = p;
        return p;
    }

    /** The errno for a peer ring that has no room: ECONNRESET if the peer died, else EAGAIN (try again). */
    static int full(Peer peer) {
        return peer.checkAlive(System.nanoTime(), ShmEndpointState.LIVENESS_INTERVAL) ? -Errno.ECONNRESET : -Errno.EAGAIN;
    }
}
