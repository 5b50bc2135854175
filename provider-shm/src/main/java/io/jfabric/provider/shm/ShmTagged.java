package io.jfabric.provider.shm;

import io.jfabric.OpFlags;
import io.jfabric.util.OpRequest;

/** fi_tagged(3) on shm: tagged sends and receives, and FI_PEEK, FI_CLAIM and FI_DISCARD on the queued messages. */
final class ShmTagged {
    private final ShmTransmit transmit;
    private final ShmRecv recv;

    ShmTagged(ShmTransmit transmit, ShmRecv recv) {
        this.transmit = transmit;
        this.recv = recv;
    }

    int send(OpRequest req) {
        return transmit.send(req, true);
    }

    int recv(OpRequest req) {
        if ((req.flags & (OpFlags.PEEK | OpFlags.CLAIM)) != 0) {
            return recv.peekOrClaim(req);
        }
        return recv.post(req, true, false);
    }
}
