package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.OpRequest;

/**
 * The one transmit path of messages and tagged messages: checks a send and picks its protocol by size
 * and buffers (libfabric's {@code smr_select_proto}): inline up to inline_size, bounce up to a bounce
 * slot, CMA for a larger single native buffer when the peer can be reached that way, and pulling through
 * bounce slots otherwise. Inline and bounce gather several buffers as they copy; the pull protocol serves
 * its chunks from them.
 */
final class ShmTransmit {
    private final ShmEndpointState ep;
    private final ShmInline inline;
    private final ShmBounce bounce;
    private final ShmCma cma;
    private final ShmPull pull;

    ShmTransmit(ShmEndpointState ep, ShmInline inline, ShmBounce bounce, ShmCma cma, ShmPull pull) {
        this.ep = ep;
        this.inline = inline;
        this.bounce = bounce;
        this.cma = cma;
        this.pull = pull;
    }

    int send(OpRequest req, boolean tagged) {
        long len = ShmIov.length(req.iov, req.count);
        boolean inject = (req.flags & OpFlags.INJECT) != 0;
        if (inject && (len < 0 || len > ep.inlineSize)) {
            return -Errno.EMSGSIZE;
        }
        if (len < 0) {
            return -Errno.EINVAL;
        }
        Peer peer = ep.av.peer(req.peer);
        if (peer == null) {
            return -Errno.EINVAL;
        }
        if (peer.goneForSend()) {
            return -Errno.ECONNRESET;
        }
        int wflags = (tagged ? Wire.FLAG_TAGGED : 0) | ((req.flags & OpFlags.REMOTE_CQ_DATA) != 0 ? Wire.FLAG_CQ_DATA : 0);
        // an fi_inject call never completes; otherwise FI_SELECTIVE_COMPLETION leaves out sends without FI_COMPLETION
        boolean complete = ep.bindings.txWantsCompletion(req.flags);
        long cqFlags = OpFlags.SEND | (tagged ? OpFlags.TAGGED : OpFlags.MSG);
        if (len <= ep.inlineSize) {
            return inline.send(peer, req, (int) len, wflags, complete, cqFlags);
        }
        return sendLarger(peer, req, len, wflags, complete, cqFlags);
    }

    /**
     * The protocols past inline_size, apart so that the small-message path stays short enough for C2 to
     * inline whole into the endpoint's send hook.
     */
    private int sendLarger(Peer peer, OpRequest req, long len, int wflags, boolean complete, long cqFlags) {
        if (len <= ep.slotSize) {
            return bounce.send(peer, req, (int) len, wflags, complete, cqFlags);
        }
        if (ShmCma.fits(peer, req)) {
            return cma.send(peer, req, len, wflags, complete, cqFlags);
        }
        return pull.send(peer, req, len, wflags, complete, cqFlags);
    }
}
