package io.jfabric.provider.shm;

import io.jfabric.Errno;

import java.util.Arrays;

/**
 * Notices, for one endpoint bound to an EQ, that a peer in its AV is gone (its process exited or it closed
 * its endpoint) even when nothing is in flight to it: a receive from FI_ADDR_UNSPEC waits for any peer, so
 * no operation would ever tell. Progress calls {@link #scan} every {@link ShmEndpointState#LIVENESS_INTERVAL}
 * (one pidfd syscall per AV peer), never per operation. Each loss is reported once: the receives directed at
 * that peer fail with FI_ECONNRESET and the EQ hears the jfabric extension FI_JF_PEER_FAILED.
 */
final class ShmPeerWatch {
    private final ShmEndpointState ep;
    private final ShmRecv recv;
    private final Object endpoint;
    /** Per fi_addr, the peer already reported gone (a peer inserted again after fi_av_remove is watched anew). */
    private Peer[] reported = new Peer[16];
    /** Set when an EQ is bound: without one nobody could hear the event. */
    private volatile boolean active;

    ShmPeerWatch(ShmEndpointState ep, ShmRecv recv, Object endpoint) {
        this.ep = ep;
        this.recv = recv;
        this.endpoint = endpoint;
    }

    void activate() {
        active = true;
    }

    boolean active() {
        return active;
    }

    /**
     * Whether {@code fiAddr}'s peer was reported gone and is still the one the AV holds there (a peer inserted
     * again is not gone): two array reads, made only for a directed receive nothing queued could fill.
     */
    boolean isGone(long fiAddr) {
        Peer[] r = reported;
        ShmAv av = ep.av;
        if (fiAddr < 0 || fiAddr >= r.length || av == null) {
            return false;
        }
        Peer p = r[(int) fiAddr];
        return p != null && p == av.peer(fiAddr);
    }

    /** Looks at every AV peer not yet reported; returns the work done (events raised and receives failed). */
    int scan(long now) {
        ShmAv av = ep.av;
        if (av == null || !active) {
            return 0;
        }
        int n = av.size();
        if (reported.length < n) {
            reported = Arrays.copyOf(reported, Math.max(n, reported.length * 2));
        }
        int work = 0;
        for (int i = 0; i < n; i++) {
            Peer p = av.peer(i);
            if (p != null && reported[i] != p && p.checkAlive(now, ShmEndpointState.LIVENESS_INTERVAL)) {
                reported[i] = p;
                work += 1 + recv.failDirectedAt(i, Errno.ECONNRESET);
                ep.bindings.reportPeerFailed(endpoint, i, p.avAddress());
            }
        }
        return work;
    }
}
