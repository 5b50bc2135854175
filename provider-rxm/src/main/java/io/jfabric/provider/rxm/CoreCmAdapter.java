package io.jfabric.provider.rxm;

import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.Endpoint;
import io.jfabric.EndpointOption;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.util.Sockaddr;

/**
 * {@link CoreCm} over the core provider (rxm_open_conn, rxm_send_connect, rxm_accept_connreq): each
 * connection gets its own core FI_EP_MSG endpoint, bound to the rxm endpoint's core EQ and CQ, with
 * receive buffers preposted before the handshake so nothing the peer sends first is missed.
 */
final class CoreCmAdapter implements CoreCm<Endpoint> {
    private final RxmShared s;

    CoreCmAdapter(RxmShared s) {
        this.s = s;
    }

    @Override
    public Endpoint connect(RxmConnection<Endpoint> conn, byte[] peerAddr, byte[] cmData) {
        FabricInfo info = s.domain.coreInfo.copy();
        info.destAddr = peerAddr.clone();
        // leave from the interface the endpoint listens on (the application's source address), not the one
        // discovery's core info names: a connect from loopback to a peer on another interface fails
        info.srcAddr = Sockaddr.withPort(s.localAddr, 0);
        info.handle = null;
        Endpoint core = open(conn, info);
        try {
            core.connect(peerAddr, cmData);
        } catch (RuntimeException e) {
            closeQuietly(core);
            throw e;
        }
        return core;
    }

    @Override
    public Endpoint accept(RxmConnection<Endpoint> conn, FabricInfo connreq, byte[] cmData) {
        Endpoint core = open(conn, connreq);
        try {
            core.accept(cmData);
        } catch (RuntimeException e) {
            closeQuietly(core);
            throw e;
        }
        return core;
    }

    private Endpoint open(RxmConnection<Endpoint> conn, FabricInfo info) {
        if (s.dynRbuf) {
            // the core takes the peer's headerless tagged messages only on endpoints opened with FI_TAGGED
            info = info.copy();
            info.caps |= Caps.TAGGED;
            if (info.txAttr != null) {
                info.txAttr.caps |= Caps.TAGGED;
            }
            if (info.rxAttr != null) {
                info.rxAttr.caps |= Caps.TAGGED;
            }
        }
        if (s.rxBuffers.srx != null && info.epAttr != null) {
            info = info.copy();
            info.epAttr.rxCtxCnt = io.jfabric.Fabrics.SHARED_CONTEXT; // fi_endpoint(3): it binds a shared context
        }
        Endpoint core = s.domain.core.openEndpoint(info, conn);
        try {
            core.bind(s.coreEq);
            core.bind(s.coreCq, BindFlags.TRANSMIT | BindFlags.RECV);
            if (s.rxBuffers.srx != null) {
                s.rxBuffers.srx.bind(core);
            }
            core.enable();
            RxmCm.data(conn).coreHoldsBursts = takeOverCoalescing(core) && s.coalesceSends;
            s.rxBuffers.prepost(conn, core);
        } catch (RuntimeException e) {
            closeQuietly(core);
            throw e;
        }
        return core;
    }

    /**
     * A core that would hold a send for its next progress call on its own (jfabric's tcp) must not hold rxm's
     * protocol messages, which rxm posts from inside its progress and a peer may wait on after this side's
     * application has stopped reading; true when the core holds nothing unless rxm asks (FI_MORE).
     */
    private static boolean takeOverCoalescing(Endpoint core) {
        try {
            core.setOpt(EndpointOption.COALESCE_SENDS, 0);
            return true;
        } catch (FabricException e) {
            return false; // the core writes every send when posted (or has no such choice)
        }
    }

    @Override
    public void reject(FabricInfo connreq, byte[] cmData) {
        s.pep.reject(connreq.handle, cmData);
    }

    @Override
    public void close(Endpoint core) {
        closeQuietly(core);
    }

    private static void closeQuietly(Endpoint core) {
        try {
            core.close();
        } catch (FabricException e) {
            io.jfabric.util.FabricLog.logger("ofi_rxm").log(System.Logger.Level.DEBUG, "closing a core endpoint: {0}",
                    e.getMessage());
        }
    }
}
