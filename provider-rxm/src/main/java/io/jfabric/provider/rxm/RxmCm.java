package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.util.FabricLog;
import io.jfabric.util.Sockaddr;
import io.jfabric.util.jfr.PeerFailureEvent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * ofi_rxm's connections (libfabric's rxm_conn.c): finds or makes the connection for an fi_addr, starts the
 * on-demand connect, hears when one comes up or goes down, and holds the work connections defer when their
 * core says EAGAIN. The handshake itself is {@link ConnectionManager}'s, the state machine its tests drive
 * without a core provider.
 */
final class RxmCm implements ConnectionListener<Endpoint> {
    private static final System.Logger LOG = FabricLog.logger("ofi_rxm");
    private static final long PID = ProcessHandle.current().pid();

    private final RxmShared s;
    private final PeerTable peers = new PeerTable();
    final ConnectionManager<Endpoint> manager;
    @SuppressWarnings("unchecked")
    private RxmConnection<Endpoint>[] byFiAddr = new RxmConnection[0];
    /** {@link RxmAv#removals()} when the removed fi_addrs were last dropped. */
    private int removalsSeen;
    /** Connections with deferred work, in the order they got it. */
    private final List<RxmConnection<Endpoint>> deferredConns = new ArrayList<>();

    RxmCm(RxmShared s) {
        this.s = s;
        manager = new ConnectionManager<>(peers, new CoreCmAdapter(s), this, s.localAddr, PID, s.eagerLimit,
                s.params.msgRxSize());
        if (s.sameHost != null) {
            manager.announceSameHost(s.sameHost.announcement());
        }
    }

    // ---- lookup

    /** The connection to {@code fiAddr}, made IDLE on first use; null for an address not in the AV. */
    RxmConnection<Endpoint> connFor(long fiAddr) {
        dropRemovedIfAny();
        if (fiAddr >= 0 && fiAddr < byFiAddr.length) {
            RxmConnection<Endpoint> c = byFiAddr[(int) fiAddr];
            if (c != null) {
                return c;
            }
        }
        byte[] a = s.av == null ? null : s.av.addr(fiAddr);
        if (a == null || fiAddr > Integer.MAX_VALUE - 8) {
            return null;
        }
        RxmConnection<Endpoint> c = manager.connection(peers.bind(a, fiAddr));
        data(c);
        if (fiAddr >= byFiAddr.length) {
            byFiAddr = Arrays.copyOf(byFiAddr, (int) Math.max(fiAddr + 1, byFiAddr.length * 2L));
        }
        byFiAddr[(int) fiAddr] = c;
        return c;
    }

    /** One compare unless the application removed addresses since the last look. */
    void dropRemovedIfAny() {
        if (s.av != null && s.av.removals() != removalsSeen) {
            dropRemoved();
        }
    }

    /**
     * fi_av_remove: forgets the fi_addrs the application removed, so that an operation naming one fails with
     * EINVAL and what arrives from the peer reports the fi_addr still naming it, or none. The connection stays:
     * libfabric's rxm closes it (rxm_av_remove_handler), which loses what the peer has in flight to this side;
     * here a reinserted peer goes on over it (docs/differences.md).
     */
    private void dropRemoved() {
        RxmAv av = s.av;
        removalsSeen = av.removals();
        // the connections whose peer may have been called by a removed fi_addr: open ones, and those cached for one
        List<RxmConnection<Endpoint>> affected = manager.open();
        for (int i = 0; i < byFiAddr.length; i++) {
            RxmConnection<Endpoint> c = byFiAddr[i];
            if (c != null && av.addr(i) == null) {
                byFiAddr[i] = null;
                affected.add(c);
            }
        }
        for (RxmConnection<Endpoint> c : affected) {
            long fi = c.peer().fiAddr();
            if (fi != Fabrics.ADDR_NOTAVAIL && av.addr(fi) == null) {
                long still = stillNamed(c);
                if (still >= 0) {
                    peers.bind(c.peer().addr(), still);
                } else {
                    peers.unbind(c.peer());
                }
            }
        }
    }

    /** An fi_addr still naming {@code c}'s peer, or -1. */
    private long stillNamed(RxmConnection<Endpoint> c) {
        for (int i = 0; i < byFiAddr.length; i++) {
            if (byFiAddr[i] == c) {
                return i;
            }
        }
        return -1;
    }

    static ConnData data(RxmConnection<Endpoint> c) {
        if (c.attachment == null) {
            c.attachment = new ConnData();
        }
        return (ConnData) c.attachment;
    }

    /** Source fi_addr of what arrives on {@code c}, resolving peers the application inserted after they connected. */
    long srcOf(RxmConnection<Endpoint> c) {
        long fi = c.peer().fiAddr();
        ConnData cd = data(c);
        RxmAv av = s.av;
        if (fi == Fabrics.ADDR_NOTAVAIL && av != null && cd.avVersionSeen != av.version()) {
            cd.avVersionSeen = av.version();
            fi = av.fiAddrOf(c.peer().addr());
            if (fi != Fabrics.ADDR_NOTAVAIL) {
                peers.bind(c.peer().addr(), fi);
            }
        }
        return fi;
    }

    /** Every connection with a core endpoint. */
    List<RxmConnection<Endpoint>> open() {
        return manager.open();
    }

    /** Connection state to a peer, for tests and diagnostics. */
    ConnState state(long fiAddr) {
        RxmConnection<Endpoint> c = connFor(fiAddr);
        return c == null ? null : c.state();
    }

    // ---- connecting

    /**
     * rxm_get_conn: 0 when {@code c} is connected; -EAGAIN while connecting (starting a connect from IDLE);
     * the errno of a connect that just failed, once.
     */
    int ready(RxmConnection<Endpoint> c, ConnData cd, boolean tagged) {
        if (c.state() == ConnState.IDLE && cd.connectFailure != 0) {
            return -takeConnectFailure(cd);
        }
        int rc = manager.ensureConnected(c);
        if (rc == -Errno.EAGAIN) {
            cd.waiting = true;
            cd.waitingTagged = tagged;
            s.progress.run();
            if (c.isConnected()) {
                return 0;
            }
            if (c.state() == ConnState.IDLE && cd.connectFailure != 0) {
                return -takeConnectFailure(cd);
            }
        }
        return rc;
    }

    private static int takeConnectFailure(ConnData cd) {
        int e = cd.connectFailure;
        cd.connectFailure = 0;
        return e;
    }

    @Override
    public void connected(RxmConnection<Endpoint> c) {
        ConnData cd = data(c);
        cd.waiting = false;
        cd.everConnected = true;
        cd.connectFailure = 0;
        cd.sameHostPid = s.sameHost == null ? 0 : s.sameHost.verify(c.peerSameHost());
        s.recv.markGone(srcOf(c), false); // a peer that comes back is no longer gone
        if (!cd.deferred.isEmpty()) {
            scheduleDeferred(c, cd);
        }
        LOG.log(System.Logger.Level.DEBUG, "connected: {0}", c);
    }

    @Override
    public void closed(RxmConnection<Endpoint> c, int errno) {
        ConnData cd = data(c);
        cd.generation++;
        cd.sameHostPid = 0;
        cd.postedTagged = 0;
        cd.postedUntagged = 0;
        cd.heldTagged = 0;
        cd.heldUntagged = 0;
        LOG.log(System.Logger.Level.DEBUG, "connection closed ({0}): {1}", Errno.name(errno), c);
        boolean report = errno != Errno.ECANCELED;
        if (!cd.everConnected && report) {
            // A connect failed. The operations that got EAGAIN were never accepted, so the failure is reported
            // without an operation context (as libfabric's rxm_cq_write_error_all does), with the peer's
            // address in err_data; the next operation to this peer returns the errno once.
            cd.connectFailure = errno;
            if (cd.waiting) {
                s.bindings.reportTxFailure(null, OpFlags.SEND | (cd.waitingTagged ? OpFlags.TAGGED : OpFlags.MSG),
                        errno, errno, c.peer().addr().clone());
            }
        }
        boolean lostPeer = cd.everConnected && report;
        cd.waiting = false;
        cd.everConnected = false;
        // transmits in flight or deferred on this connection fail; their buffers become orphans
        for (DeferredWork w : cd.deferred) {
            if (w instanceof TxBuf tb) {
                tb.orphan = true;
            }
        }
        cd.deferred.clear();
        if (cd.queuedForDeferred) {
            deferredConns.remove(c);
            cd.queuedForDeferred = false;
        }
        int failed = s.transmit.connectionLost(cd, errno) + s.recv.connectionLost(cd, errno);
        if (lostPeer) {
            failed += peerGone(c, errno);
        }
        if (lostPeer && PeerFailureEvent.isRecorded()) {
            PeerFailureEvent.emit("ofi_rxm", Sockaddr.straddr(c.peer().addr()), errno, failed,
                    "connection lost (" + Errno.name(errno) + ")");
        }
    }

    /**
     * A connected peer is gone (reset, timed out, keepalive failed, restarted): the receives directed at it
     * fail too, and the EQ hears FI_JF_PEER_FAILED naming it. Returns how many receives failed.
     */
    private int peerGone(RxmConnection<Endpoint> c, int errno) {
        long fi = srcOf(c);
        int n = fi == Fabrics.ADDR_NOTAVAIL ? 0 : s.recv.failDirectedAt(fi, errno);
        s.recv.markGone(fi, true);
        s.bindings.reportPeerFailed(s.endpoint, fi, c.peer().addr());
        return n;
    }

    /** A peer broke the protocol: its connection is closed, failing what is in flight on it. */
    void protocolError(RxmConnection<Endpoint> c, String what) {
        LOG.log(System.Logger.Level.WARNING, "closing the connection to {0}: it sent {1}", c.peer(), what);
        Endpoint e = c.ep();
        if (e != null) {
            manager.onShutdown(e, Errno.ECONNABORTED);
        }
    }

    // ---- deferred work

    /** Queues {@code w} behind what {@code c} already defers. */
    void defer(RxmConnection<Endpoint> c, ConnData cd, DeferredWork w) {
        cd.deferred.addLast(w);
        scheduleDeferred(c, cd);
    }

    private void scheduleDeferred(RxmConnection<Endpoint> c, ConnData cd) {
        if (!cd.queuedForDeferred) {
            cd.queuedForDeferred = true;
            deferredConns.add(c);
        }
    }

    boolean hasDeferred() {
        return !deferredConns.isEmpty();
    }

    /** Posts what connected connections defer, in order, until a core says EAGAIN again. */
    void flushDeferred() {
        for (int i = 0; i < deferredConns.size(); ) {
            RxmConnection<Endpoint> c = deferredConns.get(i);
            ConnData cd = data(c);
            if (c.isConnected()) {
                flushDeferred(cd);
            }
            if (cd.deferred.isEmpty()) {
                cd.queuedForDeferred = false;
                deferredConns.remove(i);
            } else {
                i++;
            }
        }
    }

    private void flushDeferred(ConnData cd) {
        while (!cd.deferred.isEmpty()) {
            boolean done = switch (cd.deferred.peekFirst()) {
                case TxBuf tb -> s.transmit.retry(tb);
                case TxOp op -> s.sar.retry(op);
                case RecvEntry re -> s.rndv.retry(re);
            };
            if (!done) {
                return;
            }
            cd.deferred.pollFirst();
        }
    }

    // ---- teardown and diagnostics

    /** Closes every connection (endpoint close), failing what is queued on them with ECANCELED. */
    void closeAll() {
        manager.closeAll();
    }

    int deferredConnections() {
        return deferredConns.size();
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(manager.toString());
        for (RxmConnection<Endpoint> c : manager.open()) {
            ConnData cd = data(c);
            b.append("\n  ").append(c.peer()).append(": posted ").append(cd.postedUntagged).append(" untagged, ")
                    .append(cd.postedTagged).append(" tagged, deferred ").append(cd.deferred.size())
                    .append(", in flight ").append(cd.inflight != null).append(", core ").append(c.ep());
        }
        return b.toString();
    }
}
