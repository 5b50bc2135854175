package io.jfabric.netty;

import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.netty.FrameLink.RxSlot;
import io.jfabric.netty.FrameLink.TxSlot;

/**
 * The endpoint a client's CONNECT leaves from where the provider keeps a connection per peer (ofi_rxm), closed once
 * the accepted side has answered. Sent from the channel's own endpoint, the CONNECT would leave that endpoint a
 * connection to the listener for the channel's whole life: idle, yet read by every progress call of the channel's
 * loop, and one more for the listener's loop to read per client. jfabric's rxm keeps a connection when its peer
 * leaves the AV (docs/differences.md), so a throwaway endpoint is the way to have none.
 */
final class Dialer implements FrameLink.Sink, AutoCloseable {
    private final FrameLink link;
    /** The listener's fi_addr in the dialer's AV. */
    final long server;
    /** Why the CONNECT failed for good, or null. */
    private String failure;

    private Dialer(FrameLink link, long server) {
        this.link = link;
        this.server = server;
    }

    /** Whether a CONNECT over {@code provider} should leave from a dialer rather than the channel's endpoint. */
    static boolean wanted(String provider) {
        return provider.contains("ofi_rxm");
    }

    /**
     * Opens a dialer on {@code loop} with room for one CONNECT naming an endpoint of {@code nameLength} bytes, and
     * the listener {@code serverName} in its AV.
     */
    static Dialer open(LoopDomain loop, FabricInfo info, byte[] serverName, int nameLength) {
        int slot = Math.max(256, Frame.HEADER + 4 + nameLength);
        FrameLink link = FrameLink.open(loop, info, 0, 0, 1, slot);
        try {
            return new Dialer(link, link.insert(serverName));
        } catch (RuntimeException e) {
            link.close();
            throw e;
        }
    }

    FrameLink link() {
        return link;
    }

    /** Drives the dialer's endpoint (its connection to the listener, the CONNECT's completion); returns the work done. */
    int poll() {
        return link.poll(this);
    }

    /** Why the CONNECT could not reach the listener, or null while it may still. */
    String failure() {
        return failure;
    }

    @Override
    public void received(RxSlot slot) {
        // no receive is posted: the accepted side answers the channel's own endpoint
    }

    @Override
    public void sent(TxSlot slot) {
        link.giveBack(slot);
    }

    @Override
    public void failed(Object context, int err, String why) {
        if (context instanceof TxSlot t) {
            link.giveBack(t);
        }
        if (err != Errno.ECANCELED) {
            failure = why + " (errno " + err + ")";
        }
    }

    @Override
    public void close() {
        link.close();
    }
}
