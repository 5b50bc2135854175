package io.jfabric.provider.rxm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.provider.rxm.wire.CmData;
import io.jfabric.util.Sockaddr;
import io.jfabric.util.jfr.ConnectionEvent;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * libfabric's on-demand connection management for one rxm endpoint (prov/rxm/src/rxm_conn.c, v1.17):
 * <ul>
 * <li>the first send or RMA to a peer opens a core MSG endpoint and connects; until CONNECTED the call
 *     returns -EAGAIN and CQ reads drive the handshake ({@link #ensureConnected});</li>
 * <li>a connection request while we are connecting to the same peer is settled by address: the lower
 *     address's request wins, the other side rejects with EALREADY or drops its own request; equal
 *     addresses (talking to ourselves) get a separate loopback connection;</li>
 * <li>a request from a connected peer with the same pid is rejected (EALREADY); a different pid is a
 *     restarted peer, whose new connection replaces the old one;</li>
 * <li>a reject (other than EALREADY), a shutdown or an error frees the connection back to IDLE, so the next
 *     send reconnects and one failure never poisons later connects (libfabric #6682).</li>
 * </ul>
 * Not thread-safe: the endpoint calls it under its own serialization.
 *
 * @param <E> core endpoint type
 */
public final class ConnectionManager<E> {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("ofi_rxm");

    private final PeerTable peers;
    private final CoreCm<E> core;
    private final ConnectionListener<E> listener;
    private final long pid;
    private final long eagerLimit;
    private final long rxSize;
    private byte[] localAddr;
    /** What this endpoint appends to its connect and accept data, or null (RxmSameHost). */
    private CmData.SameHost sameHost;

    private final List<RxmConnection<E>> byPeer = new ArrayList<>();
    private final List<RxmConnection<E>> loopbacks = new ArrayList<>();
    private final Map<E, RxmConnection<E>> byEp = new IdentityHashMap<>();
    private int setupCount;
    /** Connections in CONNECTED; read racily by statistics. */
    private int connectedCount;

    /**
     * @param localAddr  our listening address (its port goes into the connect data; its bytes settle
     *                   simultaneous connects)
     * @param pid        the process id carried in our conn ids
     * @param eagerLimit announced and required of peers
     * @param rxSize     announced rx size
     */
    public ConnectionManager(PeerTable peers, CoreCm<E> core, ConnectionListener<E> listener, byte[] localAddr,
                             long pid, long eagerLimit, long rxSize) {
        this.peers = peers;
        this.core = core;
        this.listener = listener;
        this.localAddr = localAddr;
        this.pid = pid;
        this.eagerLimit = eagerLimit;
        this.rxSize = rxSize;
    }

    public PeerTable peers() {
        return peers;
    }

    /** Announce {@code local} to every peer from now on (null: announce nothing, as libfabric). */
    public void announceSameHost(CmData.SameHost local) {
        this.sameHost = local;
    }

    private byte[] withAnnouncement(byte[] data) {
        return sameHost == null ? data : sameHost.appendTo(data);
    }

    public void setLocalAddr(byte[] addr) {
        this.localAddr = addr;
    }

    /** The indexed connection to {@code peer}, created IDLE if there is none. */
    public RxmConnection<E> connection(Peer peer) {
        while (byPeer.size() <= peer.index) {
            byPeer.add(null);
        }
        RxmConnection<E> c = byPeer.get(peer.index);
        if (c == null) {
            c = new RxmConnection<>(peer, false);
            byPeer.set(peer.index, c);
        }
        return c;
    }

    /** The indexed connection to the peer with this index, or null. */
    public RxmConnection<E> connectionAt(int peerIndex) {
        return peerIndex >= 0 && peerIndex < byPeer.size() ? byPeer.get(peerIndex) : null;
    }

    /** The connection that owns core endpoint {@code ep}, or null for one already closed. */
    public RxmConnection<E> byEndpoint(E ep) {
        return byEp.get(ep);
    }

    /** Connections up (CONNECTED). */
    public int connected() {
        return connectedCount;
    }

    /** Connections still in CONNECTING or ACCEPTING; while non-zero, CM events are polled on every progress. */
    public int settingUp() {
        return setupCount;
    }

    /**
     * rxm_get_conn + rxm_connect: 0 when connected; -EAGAIN while the handshake runs (a connect is started
     * from IDLE); another negative errno when the core refused to even start a connect.
     */
    public int ensureConnected(RxmConnection<E> c) {
        switch (c.state) {
            case CONNECTED:
                return 0;
            case CONNECTING:
            case ACCEPTING:
                return -Errno.EAGAIN;
            default:
                break;
        }
        byte[] data = withAnnouncement(CmData.Connect.local(Sockaddr.port(localAddr), eagerLimit, rxSize,
                CmData.connId(pid, c.peer.index)).encode());
        try {
            c.ep = core.connect(c, c.peer.addr, data);
        } catch (FabricException e) {
            LOG.log(System.Logger.Level.WARNING, "connect to {0} failed: {1}", c.peer, e.getMessage());
            c.ep = null;
            return -e.errno();
        }
        byEp.put(c.ep, c);
        c.state = ConnState.CONNECTING;
        setupCount++;
        return -Errno.EAGAIN;
    }

    /** FI_CONNREQ on our passive endpoint (rxm_process_connreq). */
    public void onConnReq(FabricInfo connreq, byte[] cmData) {
        CmData.Connect req = CmData.Connect.decode(cmData);
        String bad = req == null ? "no rxm connect data" : req.mismatch(eagerLimit);
        if (bad != null || connreq.destAddr == null) {
            LOG.log(System.Logger.Level.WARNING, "refusing connection from {0}: {1}",
                    Sockaddr.straddr(connreq.destAddr), bad == null ? "no source address" : bad);
            record(ConnectionEvent.REFUSED, connreq.destAddr, bad == null ? "no source address" : bad);
            reject(connreq, CmData.REJECT_ECONNREFUSED);
            return;
        }
        byte[] peerAddr = Sockaddr.withPort(connreq.destAddr, req.port());
        Peer peer = peers.getOrAdd(peerAddr);
        RxmConnection<E> c = connection(peer);
        long reqPid = CmData.peerPid(req.clientConnId());
        switch (c.state) {
            case IDLE:
                break;
            case CONNECTING: {
                int cmp = Sockaddr.compare(peerAddr, localAddr);
                if (cmp < 0) {
                    LOG.log(System.Logger.Level.DEBUG, "simultaneous connect with {0}: ours wins", peer);
                    reject(connreq, CmData.REJECT_EALREADY);
                    return;
                } else if (cmp > 0) {
                    LOG.log(System.Logger.Level.DEBUG, "simultaneous connect with {0}: theirs wins", peer);
                    closeEp(c);
                } else {
                    c = new RxmConnection<>(peer, true);
                    loopbacks.add(c);
                }
                break;
            }
            case ACCEPTING:
            case CONNECTED:
                if (c.remotePid != 0 && c.remotePid == reqPid) {
                    reject(connreq, CmData.REJECT_EALREADY);
                    return;
                }
                LOG.log(System.Logger.Level.INFO, "{0} restarted (pid {1} -> {2}); replacing its connection",
                        peer, c.remotePid, reqPid);
                record(ConnectionEvent.CLOSED, peer.addr, "peer restarted (pid " + c.remotePid + " -> " + reqPid + ")");
                closeEp(c);
                listener.closed(c, Errno.ECONNRESET);
                break;
            default:
                break;
        }
        c.remotePid = reqPid;
        c.remoteIndex = CmData.peerIndex(req.clientConnId());
        c.peerSameHost = CmData.SameHost.decode(cmData);
        byte[] accept = withAnnouncement(new CmData.Accept(CmData.connId(pid, peer.index), rxSize,
                CmData.FLOW_CTRL_PEER_OFF).encode());
        try {
            c.ep = core.accept(c, connreq, accept);
        } catch (FabricException e) {
            LOG.log(System.Logger.Level.WARNING, "accepting {0} failed: {1}", peer, e.getMessage());
            record(ConnectionEvent.REFUSED, peer.addr, "accept failed: " + e.getMessage());
            c.ep = null;
            reset(c);
            reject(connreq, CmData.REJECT_ECONNREFUSED);
            return;
        }
        byEp.put(c.ep, c);
        c.state = ConnState.ACCEPTING;
        setupCount++;
    }

    /** FI_CONNECTED on a core endpoint (rxm_process_connect). */
    public void onConnected(E ep, byte[] cmData) {
        RxmConnection<E> c = byEp.get(ep);
        if (c == null) {
            return;
        }
        if (c.state == ConnState.CONNECTING) {
            CmData.Accept acc = CmData.Accept.decode(cmData);
            if (acc == null) {
                LOG.log(System.Logger.Level.WARNING, "{0} accepted without rxm accept data; dropping it", c.peer);
                fail(c, Errno.ECONNABORTED);
                return;
            }
            c.remoteIndex = CmData.peerIndex(acc.serverConnId());
            c.remotePid = CmData.peerPid(acc.serverConnId());
            c.peerSameHost = CmData.SameHost.decode(cmData);
        } else if (c.state != ConnState.ACCEPTING) {
            return;
        }
        setupCount--;
        c.state = ConnState.CONNECTED;
        connectedCount++;
        record(ConnectionEvent.ESTABLISHED, c.peer.addr, "");
        listener.connected(c);
    }

    /** An ECONNREFUSED error event on a core endpoint (rxm_process_reject). */
    public void onRejected(E ep, byte[] errData) {
        RxmConnection<E> c = byEp.get(ep);
        if (c == null || c.state != ConnState.CONNECTING) {
            return; // our request lost a race we already settled by accepting theirs
        }
        CmData.Reject r = CmData.Reject.decode(errData);
        if (r.reason() == CmData.REJECT_EALREADY) {
            // the peer's own request wins; it will arrive as a CONNREQ. Back to IDLE without failing anything.
            closeEp(c);
            return;
        }
        fail(c, Errno.ECONNREFUSED);
    }

    /** FI_SHUTDOWN, or an EQ error other than a reject, on a core endpoint (rxm_process_shutdown). */
    public void onShutdown(E ep, int errno) {
        RxmConnection<E> c = byEp.get(ep);
        if (c == null) {
            return;
        }
        fail(c, errno == 0 ? Errno.ECONNRESET : errno);
    }

    /** Closes every connection (endpoint close), failing what is queued on them with ECANCELED. */
    public void closeAll() {
        for (RxmConnection<E> c : new ArrayList<>(byEp.values())) {
            fail(c, Errno.ECANCELED);
        }
    }

    /** Every connection with a core endpoint, for progress and diagnostics. */
    public List<RxmConnection<E>> open() {
        return new ArrayList<>(byEp.values());
    }

    private void fail(RxmConnection<E> c, int errno) {
        if (ConnectionEvent.isRecorded()) {
            boolean settingUp = c.state == ConnState.CONNECTING || c.state == ConnState.ACCEPTING;
            record(settingUp ? ConnectionEvent.REFUSED : ConnectionEvent.CLOSED, c.peer.addr,
                    errno == Errno.ECANCELED ? "endpoint closed" : Errno.name(errno));
        }
        closeEp(c);
        if (c.loopback) {
            loopbacks.remove(c);
        }
        listener.closed(c, errno);
    }

    private void closeEp(RxmConnection<E> c) {
        E ep = c.ep;
        if (ep != null) {
            byEp.remove(ep);
            try {
                core.close(ep);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing core endpoint of {0}: {1}", c.peer, e.getMessage());
            }
        }
        reset(c);
    }

    private void reset(RxmConnection<E> c) {
        if (c.state == ConnState.CONNECTING || c.state == ConnState.ACCEPTING) {
            setupCount--;
        } else if (c.state == ConnState.CONNECTED) {
            connectedCount--;
        }
        c.ep = null;
        c.state = ConnState.IDLE;
        c.remoteIndex = -1;
        c.remotePid = 0;
        c.peerSameHost = null;
    }

    /** A jfabric.Connection event for the connection to {@code peer} (its listening address). */
    private void record(String state, byte[] peer, String reason) {
        ConnectionEvent.emitSockaddrs("ofi_rxm", state, localAddr, peer, reason);
    }

    private void reject(FabricInfo connreq, int reason) {
        try {
            core.reject(connreq, CmData.Reject.of(reason).encode());
        } catch (FabricException e) {
            LOG.log(System.Logger.Level.DEBUG, "reject failed: {0}", e.getMessage());
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("connections:");
        for (RxmConnection<E> c : byPeer) {
            if (c != null) {
                b.append("\n  ").append(c);
            }
        }
        for (RxmConnection<E> c : loopbacks) {
            b.append("\n  ").append(c);
        }
        return b.toString();
    }
}
