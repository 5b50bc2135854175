package io.jfabric.netty;

import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;

import java.util.ArrayDeque;

/**
 * A {@link JfabricServerChannel}'s listening side on a connected (FI_EP_MSG) provider: a passive endpoint and its
 * EQ. Each FI_CONNREQ whose connection data is the stream's becomes a child channel in the backlog, which accepts
 * once registered on its loop; any other request, or one beyond the backlog, is rejected, so its client fails
 * at once instead of timing out.
 */
final class MsgListener implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("jfabric.netty");

    private final String provider;
    private final EventQueue eq;
    private final PassiveEndpoint pep;
    private final EqEntry entry = new EqEntry();
    private final EqErrEntry error = new EqErrEntry();

    private MsgListener(String provider, EventQueue eq, PassiveEndpoint pep) {
        this.provider = provider;
        this.eq = eq;
        this.pep = pep;
    }

    /** Listens where {@code at} says (its node and service; the provider's default source without them). */
    static MsgListener open(JfabricIoHandler handler, JfabricAddress at) {
        FabricInfo info = MsgPath.infos(at.provider(), at.node(), at.service()).getFirst();
        LoopDomain d = handler.domain(info);
        EventQueue eq = d.openEq();
        PassiveEndpoint pep = null;
        try {
            pep = d.fabric.openPassiveEndpoint(info);
            pep.bind(eq);
            pep.listen();
            return new MsgListener(at.provider(), eq, pep);
        } catch (RuntimeException e) {
            if (pep != null) {
                pep.close();
            }
            eq.close();
            throw e;
        }
    }

    /** What a client dials: the provider and the listening socket address. */
    JfabricAddress address() {
        return JfabricAddress.of(provider, pep.getName());
    }

    /** Turns at most one connection request into a child in {@code backlog}; returns 1 when there was an event. */
    int poll(JfabricServerChannel parent, ArrayDeque<JfabricSocketChannel> backlog, int backlogMax) {
        int ev = eq.read(entry, 0);
        if (ev == -Errno.EAGAIN) {
            return 0;
        }
        if (ev == -Errno.EAVAIL) {
            if (eq.readError(error, 0) > 0) {
                LOG.log(System.Logger.Level.WARNING, "jfabric server " + address() + ": "
                        + eq.strerror(error.provErrno, error.errData) + " (errno " + error.err + ")");
            }
            return 1;
        }
        FabricInfo req = entry.info;
        byte[] cm = entry.cmData;
        entry.info = null;
        entry.cmData = null;
        if (ev == EqEvent.CONNREQ && req != null) {
            int window = MsgPath.window(cm);
            int slotSize = MsgPath.slotSize(cm);
            if (window < 1 || slotSize < Frame.HEADER + 1 || backlog.size() >= backlogMax) {
                LOG.log(System.Logger.Level.WARNING, "jfabric server " + address() + " rejected "
                        + SockAddr.text(req.destAddr) + " (window " + window + ", slot " + slotSize + ", backlog "
                        + backlog.size() + ")");
                pep.reject(req.handle, null);
            } else {
                backlog.addLast(new JfabricSocketChannel(parent, provider, req, window, slotSize));
            }
        }
        return 1;
    }

    @Override
    public void close() {
        try {
            pep.close();
        } finally {
            eq.close();
        }
    }
}
