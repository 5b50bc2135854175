package io.jfabric.provider.rxm;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.OpFlags;
import io.jfabric.util.AtomicRequest;
import io.jfabric.util.OpRequest;
import io.jfabric.util.Sockaddr;
import io.jfabric.util.UtilEndpoint;
import io.jfabric.util.jfr.EndpointStatistics;
import io.jfabric.util.jfr.EndpointStatisticsEvent;

import java.util.concurrent.locks.Lock;

/**
 * ofi_rxm's FI_EP_RDM endpoint ({@code struct rxm_ep}, prov/rxm/src/rxm_ep.c): connectionless messages,
 * tagged messages and RMA over on-demand core FI_EP_MSG connections. This class is the facade and the
 * control path (bind, enable, options, cancel, close); the data path enters through
 * {@link UtilEndpoint}'s 27 entry points, whose four hooks take the domain lock and hand the request to
 * {@link RxmMsg}, {@link RxmTagged} or {@link RxmRma}; fi_atomic(3)'s calls go to {@link RxmAtomic}.
 *
 * <p>Behind them: {@link RxmTransmit} (the one transmit path), the protocols {@link RxmEager},
 * {@link RxmSar} and {@link RxmRendezvous} (each with its send and receive side), {@link RxmRecv} (posted
 * and unexpected receives), {@link RxmRxBuffers} (receive-buffer posting), {@link RxmPools},
 * {@link RxmProgress} (core completion dispatch) and {@link RxmCm} (connections), all sharing
 * {@link RxmShared}. Transmits the core refuses with EAGAIN after rxm has accepted the operation wait in
 * the connection's deferred queue. Orphaned buffers (their connection failed while the core still held
 * them) are never reused, so a late completion can never touch a live operation.
 *
 * <p>Differences from libfabric: receive buffers are posted per connection (the core's shared receive context is not used);
 * the dyn_rbuf path copies from a bounce buffer instead of placing data directly; no long double atomics,
 * no FI_BUFFERED_RECV; the receiver completes a read rendezvous once its reads finish, without waiting for
 * the rd_done packet's own send completion.
 */
final class RxmEndpoint extends UtilEndpoint {
    private final RxmShared s;
    private final Lock lock;
    private final RxmMsg msg;
    private final RxmTagged tagged;
    private final RxmRma rma;
    /** The shared receive context bound, or null when the endpoint has its own receive queue. */
    private RxmSharedRx srx;
    /** This endpoint's jfabric.EndpointStatistics sample; held here so the registry's weak reference lives as long as we do. */
    private final EndpointStatistics.Source statistics = this::sample;

    RxmEndpoint(RxmDomain domain, FabricInfo info) {
        honourTxLevels(RxmProvider.TX_LEVELS, info.txAttr == null ? 0 : info.txAttr.opFlags, "ofi_rxm endpoint");
        s = new RxmShared(domain, info);
        s.endpoint = this;
        lock = s.lock;
        msg = new RxmMsg(s);
        tagged = new RxmTagged(s);
        rma = new RxmRma(s);
    }

    // ---- data path: the hooks of the 27 entry points

    @Override
    protected int postSend(OpRequest op) {
        lock.lock();
        try {
            return (op.flags & OpFlags.TAGGED) != 0 ? tagged.send(op) : msg.send(op);
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected int postRecv(OpRequest op) {
        lock.lock();
        try {
            return (op.flags & OpFlags.TAGGED) != 0 ? tagged.recv(op) : msg.recv(op);
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected int postRead(OpRequest op) {
        lock.lock();
        try {
            return rma.read(op);
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected int postWrite(OpRequest op) {
        lock.lock();
        try {
            return rma.write(op);
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected int postAtomic(AtomicRequest op) {
        lock.lock();
        try {
            return s.atomic.post(op);
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected long atomicLimit(int kind, AtomicDatatype datatype) {
        return s.atomic.limit(kind, datatype);
    }

    @Override
    protected long txFlags() {
        return s.info.txAttr == null ? 0 : s.info.txAttr.opFlags;
    }

    @Override
    protected long rxFlags() {
        return s.info.rxAttr == null ? 0 : s.info.rxAttr.opFlags;
    }

    /** Drives this endpoint; the progress hook of its CQs and counters calls it under the domain lock. */
    void progress() {
        s.progress.run();
    }

    /** The progress hooks of the core CQ and EQ: a waiter on this endpoint's queues sleeps where they sleep. */
    io.jfabric.util.ProgressHook[] coreWaits() {
        return s.coreWaits;
    }

    /**
     * A waiter is about to sleep on the core's event source (under the domain lock): false when the core queues
     * hold entries the last progress left for the next (a sleep would not see them).
     */
    boolean beforeSleep() {
        s.progress.beforeSleep();
        return !s.coreHasEvents();
    }

    // ---- control path

    /** One CQ per direction: a second for a direction that has one is EINVAL and changes nothing (fi_endpoint(3)). */
    @Override
    public void bind(CompletionQueue cq, long flags) {
        if (!(cq instanceof RxmCq r)) {
            throw new FabricException(Errno.EINVAL, "bind an ofi_rxm endpoint to a CQ of the same ofi_rxm domain");
        }
        lock.lock();
        try {
            s.bindings.bindCq(r, flags);
        } finally {
            lock.unlock();
        }
        r.attach(this);
    }

    @Override
    public void bind(EventQueue eq) {
        // no CM events on RDM; the EQ hears of peers found gone (the jfabric extension FI_JF_PEER_FAILED)
        lock.lock();
        try {
            s.bindings.bindEq(eq);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void bind(AddressVector av) {
        if (!(av instanceof RxmAv r)) {
            throw new FabricException(Errno.EINVAL, "bind an ofi_rxm endpoint to an AV of the same ofi_rxm domain");
        }
        lock.lock();
        try {
            if (s.av != null) {
                throw new FabricException(Errno.EINVAL, "this endpoint is already bound to an AV");
            }
            s.av = r;
        } finally {
            lock.unlock();
        }
        r.bindEndpoint();
    }

    @Override
    public void bind(Counter counter, long flags) {
        if (!(counter instanceof RxmCounter c)) {
            throw new FabricException(Errno.EINVAL, "bind an ofi_rxm endpoint to a counter of the same ofi_rxm domain");
        }
        if ((flags & (BindFlags.REMOTE_READ | BindFlags.REMOTE_WRITE)) != 0) {
            // RMA lands through the core endpoint, unseen by rxm: counting it needs FI_RMA_EVENT, not offered
            throw new FabricException(Errno.ENOSYS, "ofi_rxm counts no remote RMA (FI_RMA_EVENT is not offered)");
        }
        lock.lock();
        try {
            // a second counter for a kind would leave the first bound but forgotten: refused
            s.bindings.bindCounter(c, flags);
        } finally {
            lock.unlock();
        }
        c.attach(this);
    }

    @Override
    public void bind(io.jfabric.SharedRxContext context) {
        if (!(context instanceof RxmSharedRx r) || r.domain != s.domain) {
            throw new FabricException(Errno.EINVAL, "bind an ofi_rxm endpoint to a shared receive context of the "
                    + "same ofi_rxm domain");
        }
        lock.lock();
        try {
            if (s.enabled || srx != null || s.closed) {
                throw new FabricException(Errno.EINVAL, "bind one shared receive context before enabling the endpoint");
            }
            srx = r;
            s.recv.share(r.matcher);
        } finally {
            lock.unlock();
        }
        r.add(this);
    }

    /** The bound receive CQ (a shared receive context completes what it still holds at close there). */
    io.jfabric.util.UtilCompletionQueue rxCq() {
        return s.bindings.rxCq();
    }

    /** Whether a shared receive context may post through this endpoint: enabled and not closed (under the lock). */
    boolean acceptsPosts() {
        return s.enabled && !s.closed;
    }

    @Override
    public void enable() {
        lock.lock();
        try {
            s.bindings.checkEnable(true, true, false, false);
            if (s.av == null) {
                throw new FabricException(Errno.ENOAV, "bind an AV before enable; RDM endpoints address peers by fi_addr");
            }
            s.enabled = true;
            s.progress.start();
            EndpointStatistics.register(statistics);
        } finally {
            lock.unlock();
        }
    }

    /** fi_no_connect: RDM endpoints connect on demand, so fi_connect is -FI_ENOSYS as in libfabric. */
    @Override
    public void connect(byte[] addr, byte[] data) {
        throw new FabricException(Errno.ENOSYS, "ofi_rxm endpoints are connectionless: insert the peer in the "
                + "AV and send; connections are made on demand");
    }

    /** fi_no_accept: -FI_ENOSYS, as fi_connect. */
    @Override
    public void accept(byte[] data) {
        throw new FabricException(Errno.ENOSYS, "ofi_rxm endpoints accept connections on their own");
    }

    @Override
    public void shutdown(long flags) {
        throw new FabricException(Errno.EOPNOTSUPP, "ofi_rxm endpoints are connectionless; close the endpoint");
    }

    @Override
    public byte[] getName() {
        return s.localAddr.clone();
    }

    @Override
    public void setName(byte[] addr) {
        throw new FabricException(Errno.EOPNOTSUPP, "set the address through the info's src_addr before opening");
    }

    @Override
    public byte[] getPeer() {
        throw new FabricException(Errno.EOPNOTSUPP, "ofi_rxm endpoints are connectionless and have no single peer");
    }

    @Override
    public long getOpt(EndpointOption option) {
        return switch (option) {
            case MIN_MULTI_RECV -> {
                lock.lock();
                try {
                    yield s.recv.minMultiRecv();
                } finally {
                    lock.unlock();
                }
            }
            case CM_DATA_SIZE -> 0;
            default -> throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " is not supported by ofi_rxm");
        };
    }

    @Override
    public void setOpt(EndpointOption option, long value) {
        if (option == EndpointOption.MIN_MULTI_RECV) {
            if (value < 0) {
                throw new FabricException(Errno.EINVAL, "FI_OPT_MIN_MULTI_RECV is a size: " + value + " is negative");
            }
            lock.lock();
            try {
                s.recv.setMinMultiRecv(value);
            } finally {
                lock.unlock();
            }
            return;
        }
        throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " cannot be set on ofi_rxm endpoints");
    }

    @Override
    public int cancel(Object context) {
        lock.lock();
        try {
            return s.recv.cancel(context);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (s.closed) {
                return;
            }
            s.closed = true;
            EndpointStatistics.unregister(statistics);
            s.cm.closeAll();
            s.recv.cancelAll();
        } finally {
            lock.unlock();
        }
        if (s.bindings.txCq() instanceof RxmCq cq) {
            cq.detach(this);
        }
        if (s.bindings.rxCq() instanceof RxmCq cq) {
            cq.detach(this);
        }
        for (long kind : new long[] {BindFlags.TRANSMIT, BindFlags.RECV, BindFlags.READ, BindFlags.WRITE}) {
            if (s.bindings.counter(kind) instanceof RxmCounter c) {
                c.detach(this);
            }
        }
        RxmShared.closeQuietly(s.pep);
        if (s.rxBuffers.srx != null) {
            s.rxBuffers.srx.close(); // after closeAll: no core endpoint is bound to it any more
        }
        RxmShared.closeQuietly(s.coreCq);
        RxmShared.closeQuietly(s.coreEq);
        RxmShared.closeQuietly(s.sameHost);
        s.pools.closeRegistrations();
        s.pools.freeSlabs(srx);
        if (s.av != null) {
            s.av.unbindEndpoint();
        }
        if (srx != null) {
            srx.remove(this);
        }
        s.bindings.releaseAll();
        s.domain.release();
    }

    /** Runs on JFR's periodic thread, without the lock: reads what the endpoint already counts. */
    private void sample(EndpointStatisticsEvent e) {
        e.provider = "ofi_rxm";
        e.endpoint = Sockaddr.straddr(s.localAddr);
        s.bindings.sample(e);
        e.txInFlight = s.pools.txOpsInUse();
        e.connections = s.cm.manager.connected();
    }

    /** Connection state to a peer, for tests and diagnostics. */
    ConnState connState(long fiAddr) {
        lock.lock();
        try {
            return s.cm.state(fiAddr);
        } finally {
            lock.unlock();
        }
    }

    /** State for failure dumps: connections, queues, pools. */
    @Override
    public String toString() {
        lock.lock();
        try {
            return "RxmEndpoint[" + Sockaddr.straddr(s.localAddr) + ", dyn_rbuf="
                    + s.dynRbuf + ", eager=" + s.eagerLimit + ", sar=" + s.selector.sarLimit() + ", rndv="
                    + (s.rndvWrite ? "write" : "read") + (s.sameHost == null ? "" : ", " + s.sameHost) + ", " + s.pools + ", " + s.recv + "\n  deferred conns "
                    + s.cm.deferredConnections() + "\n" + s.cm + "]";
        } finally {
            lock.unlock();
        }
    }
}
