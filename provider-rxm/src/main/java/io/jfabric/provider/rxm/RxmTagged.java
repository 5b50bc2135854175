package io.jfabric.provider.rxm;

import io.jfabric.OpFlags;
import io.jfabric.util.OpRequest;

/**
 * ofi_rxm's fi_tagged entry points (libfabric's rxm_tagged.c): tagged sends go down the one transmit path,
 * tagged receives to the receive side, and a trecvmsg with FI_PEEK or FI_CLAIM looks at the unexpected
 * messages instead of posting.
 */
final class RxmTagged {
    private final RxmTransmit transmit;
    private final RxmRecv recv;

    RxmTagged(RxmShared s) {
        this.transmit = s.transmit;
        this.recv = s.recv;
    }

    int send(OpRequest r) {
        return transmit.send(true, r);
    }

    int recv(OpRequest r) {
        if ((r.flags & (OpFlags.PEEK | OpFlags.CLAIM)) != 0) {
            return recv.peekClaim(r);
        }
        return recv.post(true, r);
    }
}
