package io.jfabric.provider.rxm;

import io.jfabric.util.OpRequest;

/**
 * ofi_rxm's fi_msg entry points (libfabric's rxm_msg.c): untagged sends go down the one transmit path,
 * untagged receives to the receive side.
 */
final class RxmMsg {
    private final RxmTransmit transmit;
    private final RxmRecv recv;

    RxmMsg(RxmShared s) {
        this.transmit = s.transmit;
        this.recv = s.recv;
    }

    int send(OpRequest r) {
        return transmit.send(false, r);
    }

    int recv(OpRequest r) {
        return recv.post(false, r);
    }
}
