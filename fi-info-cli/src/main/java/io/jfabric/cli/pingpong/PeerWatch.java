package io.jfabric.cli.pingpong;

import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;

/**
 * Notices, while a benchmark waits for completions, that its peer is gone: through the endpoint's EQ
 * (jfabric's FI_JF_PEER_FAILED on RDM, FI_SHUTDOWN or an error on MSG) or through the control connection,
 * which the kernel closes as soon as the peer process dies (so it works on every provider, libfabric's own
 * included). {@link #check} costs one EQ read and a lock-free look at the control reader: callers ask only
 * every few hundred empty polls.
 */
public final class PeerWatch {
    private final ControlChannel ctrl;
    private final EventQueue eq;
    private final String peer;
    private final EqEntry event = new EqEntry();

    /**
     * @param eq the endpoint's EQ, or null when none is bound to it
     * @param fabricPeer how the fabric names the peer (fi_av_straddr), or null
     */
    public PeerWatch(ControlChannel ctrl, EventQueue eq, String fabricPeer) {
        this.ctrl = ctrl;
        this.eq = eq;
        this.peer = ctrl.peer() + (fabricPeer == null ? "" : " (fabric address " + fabricPeer + ")");
    }

    /** The peer, for messages: its control address and fabric address. */
    public String peer() {
        return peer;
    }

    /** Throws FabricException(FI_ECONNRESET) naming the peer once it is known to be gone. */
    public void check() {
        String why = goneBecause();
        if (why != null) {
            throw new FabricException(Errno.ECONNRESET, "the peer " + peer + " is gone: " + why);
        }
    }

    /** Why the peer is known to be gone, or null while nothing says so. */
    public String goneBecause() {
        if (eq != null) {
            int rc = eq.read(event, 0);
            if (rc == EqEvent.PEER_FAILED) {
                return "the endpoint's EQ reported FI_JF_PEER_FAILED for fi_addr " + event.data;
            }
            if (rc == EqEvent.SHUTDOWN) {
                return "the connection was shut down (FI_SHUTDOWN)";
            }
            if (rc == -Errno.EAVAIL) {
                return "the endpoint's EQ reported an error";
            }
        }
        if (ctrl.peerClosed()) {
            return "it closed the control connection (the process exited)";
        }
        return null;
    }
}
