package io.jfabric.provider.rxm;

import io.jfabric.util.OpRequest;

/**
 * ofi_rxm's fi_msg entry points (libfabric's rxm_msg.c): untagged sends go down the one transmit path,
 * untagged receives to the receive side.
 */
final class RxmMsg {
    private final RxmShared s;

    RxmMsg(RxmShared s) {
        this.s = s;
    }

    int send(OpRequest r) {
        return s.transmit.send(false, r);
    }

    int recv(OpRequest r) {
        return s.recv.post(false, r);
    }
}
