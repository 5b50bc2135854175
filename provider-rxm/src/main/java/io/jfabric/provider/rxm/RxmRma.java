package io.jfabric.provider.rxm;

import io.jfabric.util.OpRequest;

/**
 * ofi_rxm's fi_rma entry points (libfabric's rxm_rma.c): reads and writes go straight to the peer's core
 * endpoint through the one transmit path; only their completion is rxm's.
 */
final class RxmRma {
    private final RxmTransmit transmit;

    RxmRma(RxmShared s) {
        this.transmit = s.transmit;
    }

    int read(OpRequest r) {
        return transmit.rma(false, r);
    }

    int write(OpRequest r) {
        return transmit.rma(true, r);
    }
}
