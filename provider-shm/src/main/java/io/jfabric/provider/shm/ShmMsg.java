package io.jfabric.provider.shm;

import io.jfabric.OpFlags;
import io.jfabric.util.OpRequest;

/** fi_msg(3) on shm: untagged sends and receives (FI_MULTI_RECV is for these only). */
final class ShmMsg {
    private final ShmTransmit transmit;
    private final ShmRecv recv;

    ShmMsg(ShmTransmit transmit, ShmRecv recv) {
        this.transmit = transmit;
        this.recv = recv;
    }

    int send(OpRequest req) {
        return transmit.send(req, false);
    }

    int recv(OpRequest req) {
        return recv.post(req, false, (req.flags & OpFlags.MULTI_RECV) != 0);
    }
}
