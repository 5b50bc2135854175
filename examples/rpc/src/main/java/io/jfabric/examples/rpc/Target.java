package io.jfabric.examples.rpc;

import java.util.HexFormat;

/**
 * A peer the engine forwards to: Mercury's hg_addr_t. Holds the peer's fi_addr in our AV, the id the
 * peer gave us in the hello exchange (its fi_addr for us, which each request carries so the peer can
 * answer without FI_SOURCE), and what liveness checking needs.
 */
public final class Target {
    final byte[] address;
    final long fiAddr;
    /** Our fi_addr in the peer's AV, learnt from the hello; -1 until then. */
    long idAtPeer = -1;
    /** 1 while the hello is in flight, 0 once answered, a negative errno when it failed. */
    int helloStatus = 1;
    int outstanding;
    long lastHeardNanos;
    boolean pingInFlight;
    /** 0 while alive; the errno its requests failed with once declared dead. */
    int deadStatus;

    Target(byte[] address, long fiAddr) {
        this.address = address.clone();
        this.fiAddr = fiAddr;
    }

    public byte[] address() {
        return address.clone();
    }

    /** True once the engine stopped hearing from it (ping unanswered or a send failed). */
    public boolean isDead() {
        return deadStatus != 0;
    }

    @Override
    public String toString() {
        return "Target[" + HexFormat.of().formatHex(address) + ", fi_addr=" + fiAddr + (isDead() ? ", dead" : "") + "]";
    }
}
