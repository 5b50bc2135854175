package io.jfabric.provider.shm;

import io.jfabric.OpFlags;
import io.jfabric.util.OpRequest;
import io.jfabric.util.ProgressHook;

/** fi_tagged(3) on shm: tagged sends and receives, and FI_PEEK, FI_CLAIM and FI_DISCARD on the queued messages. */
final class ShmTagged {
    private final ShmTransmit transmit;
    private final ShmRecv recv;
    /** The domain's progress, which a peek drives once first. */
    private final ProgressHook progress;

    ShmTagged(ShmTransmit transmit, ShmRecv recv, ProgressHook progress) {
        this.transmit = transmit;
        this.recv = recv;
        this.progress = progress;
    }

    int send(OpRequest req) {
        return transmit.send(req, true);
    }

    int recv(OpRequest req) {
        if ((req.flags & (OpFlags.PEEK | OpFlags.CLAIM)) != 0) {
            if ((req.flags & OpFlags.PEEK) != 0) {
                // a message still in the ring is seen too (libfabric's rxm also progresses before it peeks)
                progress.progress();
            }
            return recv.peekOrClaim(req);
        }
        return recv.post(req, true, false);
    }
}
