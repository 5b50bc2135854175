package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.util.OpRequest;

/** fi_tagged(3) on shm: tagged sends and receives. FI_PEEK, FI_CLAIM and FI_DISCARD are not offered. */
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
        if ((req.flags & (OpFlags.PEEK | OpFlags.CLAIM | OpFlags.DISCARD)) != 0) {
            return -Errno.EOPNOTSUPP;
        }
        return recv.post(req, true, false);
    }
}
