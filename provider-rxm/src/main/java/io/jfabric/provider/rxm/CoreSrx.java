package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.RxAttr;
import io.jfabric.SharedRxContext;
import io.jfabric.provider.rxm.wire.CmData;
import io.jfabric.provider.rxm.wire.RxmPacket;

/**
 * One core shared receive context per rxm endpoint (libfabric's rxm_ep srx_ctx, FI_OFI_RXM_USE_SRX): every core
 * endpoint of its connections is bound to it, and the bounce buffers are posted to it once, msg_rx_size of them,
 * instead of msg_rx_size to every connection. A buffer does not know its connection until a packet lands in it;
 * the packet's ctrl_hdr.conn_id (our index for the sender) names it. Buffers held by unexpected messages are
 * replaced from the pool, within the unexpected limit. Runs under the endpoint's lock, as the rest of rxm.
 */
final class CoreSrx {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("ofi_rxm");

    private final RxmShared s;
    private final SharedRxContext srx;
    /** How many buffers the context keeps posted: the core rx size (msg_rx_size). */
    private final int target;
    private int posted;

    private CoreSrx(RxmShared s, SharedRxContext srx, int target) {
        this.s = s;
        this.srx = srx;
        this.target = target;
    }

    /**
     * The endpoint's core srx, or null: FI_OFI_RXM_USE_SRX is on, the core offers shared receive contexts
     * (max_ep_srx_ctx), and no headerless tagged messages (dyn_rbuf) need a connection's own tagged buffers.
     */
    static CoreSrx open(RxmShared s) {
        FabricInfo core = s.domain.coreInfo;
        if (!RxmParams.useSrx() || s.dynRbuf || core.domainAttr == null || core.domainAttr.maxEpSrxCtx == 0) {
            return null;
        }
        RxAttr attr = core.rxAttr == null ? new RxAttr() : core.rxAttr.copy();
        attr.size = s.rxTarget;
        try {
            return new CoreSrx(s, s.domain.core.srxContext(attr, null), s.rxTarget);
        } catch (FabricException e) {
            LOG.log(System.Logger.Level.INFO, "core " + core.providerName() + " refused a shared receive context ("
                    + e.getMessage() + "); posting receive buffers per connection");
            return null;
        }
    }

    /** A core endpoint being opened takes its receives from the context. */
    void bind(Endpoint core) {
        core.bind(srx);
    }

    /** Posts pool buffers until the context holds its target, or the unexpected bound or the core stops it. */
    void fill() {
        RxmRxBuffers b = s.rxBuffers;
        while (posted < target) {
            if (b.unexpBuffers >= s.params.unexpectedLimit()) {
                b.needTopUp = true;
                return;
            }
            if (!post(s.pools.acquireRxBuf(false))) {
                b.needTopUp = true;
                return;
            }
        }
    }

    private boolean post(RxBuf rx) {
        rx.conn = null;
        rx.cd = null;
        rx.coreEp = null; // the mark of a buffer posted here, until a packet names its connection
        rx.orphan = false;
        if (srx.recv(rx.mem, rx.mr, 0, rx) != 0) {
            s.pools.releaseRxBuf(rx);
            return false;
        }
        posted++;
        return true;
    }

    /** Whether {@code rx} came back from this context (it has no connection yet). */
    boolean owns(RxBuf rx) {
        return rx.coreEp == null;
    }

    /** One of its buffers completed, with data or with an error: the context holds one fewer. */
    void consumed() {
        posted--;
    }

    /**
     * Gives a packet that landed in one of its buffers its connection, from ctrl_hdr.conn_id; false when there is
     * none (not an rxm packet, or a connection that is gone): the buffer then goes back to the context.
     */
    boolean attach(RxBuf rx) {
        RxmConnection<Endpoint> c = rx.len >= RxmPacket.SIZE
                ? s.cm.manager.connectionAt(CmData.peerIndex(RxmPacket.connId(rx.mem))) : null;
        Endpoint core = c == null ? null : c.ep();
        if (core == null) {
            LOG.log(System.Logger.Level.DEBUG, "a " + rx.len + "-byte message on the shared receive context names "
                    + "no open connection; dropped");
            repost(rx);
            return false;
        }
        ConnData cd = RxmCm.data(c);
        rx.conn = c;
        rx.cd = cd;
        rx.generation = cd.generation;
        rx.coreEp = core;
        return true;
    }

    /** A buffer done with (its message delivered or dropped) goes back to the context, or to the pool. */
    void repost(RxBuf rx) {
        if (posted >= target || s.rxBuffers.unexpBuffers >= s.params.unexpectedLimit() || s.closed) {
            s.pools.releaseRxBuf(rx);
            return;
        }
        if (!post(rx)) {
            s.rxBuffers.needTopUp = true;
        }
    }

    /** After the core endpoints are closed: what the context still holds completes as cancelled. */
    void close() {
        RxmShared.closeQuietly(srx);
    }

    @Override
    public String toString() {
        return "core srx " + posted + "/" + target;
    }
}
