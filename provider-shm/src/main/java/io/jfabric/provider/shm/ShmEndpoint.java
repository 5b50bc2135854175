package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.Caps;
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
import io.jfabric.util.UtilEndpoint;
import io.jfabric.util.jfr.EndpointStatistics;
import io.jfabric.util.jfr.EndpointStatisticsEvent;

import java.nio.charset.StandardCharsets;

/**
 * An shm RDM endpoint ({@code fi_endpoint}): the facade and the control path. It owns a region whose
 * ring receives every command sent to it, and writes its own commands into its peers' rings.
 *
 * <p>The rooms, after libfabric's prov/shm: {@link ShmMsg} and {@link ShmTagged} take the posts
 * provider-util's {@link UtilEndpoint} hands over, {@link ShmTransmit} picks the protocol of a send
 * ({@link ShmInline}, {@link ShmBounce}, {@link ShmCma}, {@link ShmPull}), {@link ShmRecv} matches
 * arriving messages against posted receives, {@link ShmRma} does RMA, {@link ShmInFlight} keeps the sends
 * that wait for the peer, {@link ShmAckQueue} the ACKs owed, {@link ShmCm} knows the peers and
 * {@link ShmProgress} moves it all. Each gets the shared {@link ShmEndpointState} through its constructor.
 *
 * <p>Data-path calls return 0 or a negative errno and allocate nothing once warm. At FI_THREAD_DOMAIN:
 * no locks unless the domain runs auto progress; at FI_THREAD_SAFE every call takes the domain lock.
 */
final class ShmEndpoint extends UtilEndpoint {

    private final ShmEndpointState ep;
    private final long completionFlag;
    private final ShmInFlight inFlight;
    private final ShmAckQueue acks;
    private final ShmRecv recv;
    private final ShmMsg msg;
    private final ShmTagged tagged;
    private final ShmRma rma;
    private final ShmAtomic atomic;
    private final ShmProgress progress;
    private final ShmSplitCopy split;
    private final ShmPeerWatch peerWatch;
    private boolean enabled;
    /** The shared receive context bound, or null when the endpoint has its own. */
    private ShmSharedRx srx;
    private volatile boolean closed;
    /** This endpoint's jfabric.EndpointStatistics sample; held here so the registry's weak reference lives as long as we do. */
    private final EndpointStatistics.Source statistics = this::sample;

    ShmEndpoint(ShmDomain domain, FabricInfo info) {
        honourTxLevels(ShmInfos.TX_LEVELS, info.txAttr == null ? 0 : info.txAttr.opFlags, "shm endpoint");
        String name = ShmRegion.newName();
        ShmRegion region = ShmRegion.create(domain.directory, name, domain.layout);
        this.ep = new ShmEndpointState(domain, region, ShmCm.senderIdOf(name), ShmAv.SCHEME + name);
        int rxSize = (int) Math.max(16, info.rxAttr == null || info.rxAttr.size == 0 ? 1024 : info.rxAttr.size);
        int txSize = (int) Math.max(16, info.txAttr == null || info.txAttr.size == 0 ? 1024 : info.txAttr.size);
        long caps = info.caps | (info.rxAttr == null ? 0 : info.rxAttr.caps);
        // the plain calls ask for a success completion under FI_SELECTIVE_COMPLETION when the tx op_flags say so
        this.completionFlag = info.txAttr == null ? OpFlags.COMPLETION : info.txAttr.opFlags & OpFlags.COMPLETION;
        ShmCm cm = new ShmCm(ep);
        inFlight = new ShmInFlight(ep, txSize);
        acks = new ShmAckQueue(ep);
        split = new ShmSplitCopy(ep, inFlight, cm);
        ShmCma cma = new ShmCma(ep, inFlight, split);
        boolean sourceErr = (caps & (Caps.SOURCE | Caps.SOURCE_ERR)) == (Caps.SOURCE | Caps.SOURCE_ERR);
        recv = new ShmRecv(ep, inFlight, acks, cm, cma, rxSize, Math.max(1, domain.unexpectedLimit),
                (caps & Caps.DIRECTED_RECV) != 0, sourceErr);
        ShmTransmit transmit = new ShmTransmit(ep, new ShmInline(ep, inFlight), new ShmBounce(ep, inFlight), cma,
                recv.pull());
        msg = new ShmMsg(transmit, recv);
        tagged = new ShmTagged(transmit, recv, domain);
        rma = new ShmRma(ep, inFlight, acks, cm, split);
        peerWatch = new ShmPeerWatch(ep, recv, this);
        recv.watchPeers(peerWatch);
        atomic = new ShmAtomic(ep, inFlight, acks, cm);
        progress = new ShmProgress(ep, recv, rma, atomic, split, inFlight, acks, peerWatch);
    }

    long senderId() {
        return ep.senderId;
    }

    // ---- control path ------------------------------------------------------------------------

    private void checkOpen(String action) {
        if (closed) {
            throw new FabricException(Errno.EBADF, "cannot " + action + " shm endpoint: it is closed");
        }
    }

    @Override
    public void bind(CompletionQueue cq, long flags) {
        checkOpen("bind a CQ to");
        ep.bindings.bindCq(cq, flags);
    }

    @Override
    public void bind(EventQueue eq) {
        // no connection events on RDM; the EQ hears of peers found gone (the jfabric extension FI_JF_PEER_FAILED)
        checkOpen("bind an EQ to");
        ep.bindings.bindEq(eq);
        peerWatch.activate();
    }

    @Override
    public void bind(AddressVector av) {
        checkOpen("bind an AV to");
        if (!(av instanceof ShmAv sav)) {
            throw new FabricException(Errno.EINVAL, "shm endpoints bind AVs opened from an shm domain");
        }
        ep.bindings.bindAv(sav);
        ep.av = sav;
    }

    @Override
    public void bind(Counter counter, long flags) {
        checkOpen("bind a counter to");
        if (!(counter instanceof ShmCounter c) || c.domain != ep.domain) {
            throw new FabricException(Errno.EINVAL, "shm endpoints bind counters opened from their own domain");
        }
        ep.bindings.bindCounter(c, flags);
    }

    @Override
    public void bind(io.jfabric.SharedRxContext context) {
        checkOpen("bind a shared receive context to");
        if (!(context instanceof ShmSharedRx s) || s.domain != ep.domain) {
            throw new FabricException(Errno.EINVAL, "shm endpoints bind shared receive contexts of their own domain");
        }
        if (enabled || srx != null) {
            throw new FabricException(Errno.EINVAL, "bind one shared receive context before enabling the endpoint");
        }
        s.attach();
        srx = s;
        recv.share(s.queue);
    }

    @Override
    public void enable() {
        checkOpen("enable");
        if (ep.av == null) {
            throw new FabricException(Errno.ENOAV, "bind an AV to the shm endpoint before enabling it");
        }
        if (ep.bindings.txCq() == null || ep.bindings.rxCq() == null) {
            throw new FabricException(Errno.ENOCQ, "bind CQs for TRANSMIT and RECV before enabling the shm endpoint");
        }
        ep.txCq = ep.bindings.txCq();
        ep.rxCq = ep.bindings.rxCq();
        ep.lock();
        try {
            recv.enable();
        } finally {
            ep.unlock();
        }
        enabled = true;
        EndpointStatistics.register(statistics);
    }

    @Override
    public void connect(byte[] addr, byte[] data) {
        throw new FabricException(Errno.ENOSYS, "shm endpoints are FI_EP_RDM: insert the peer into the AV instead");
    }

    @Override
    public void accept(byte[] data) {
        throw new FabricException(Errno.ENOSYS, "shm endpoints are FI_EP_RDM: nothing to accept");
    }

    @Override
    public void shutdown(long flags) {
        throw new FabricException(Errno.ENOSYS, "shm endpoints are FI_EP_RDM: nothing to shut down");
    }

    @Override
    public byte[] getName() {
        return ep.address.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void setName(byte[] addr) {
        throw new FabricException(Errno.ENOSYS, "shm endpoint names are chosen by the provider (unique per region)");
    }

    @Override
    public byte[] getPeer() {
        throw new FabricException(Errno.ENOTCONN, "shm endpoints are connectionless");
    }

    @Override
    public long getOpt(EndpointOption option) {
        return switch (option) {
            case MIN_MULTI_RECV -> recv.minMultiRecv();
            case TX_SIZE -> inFlight.capacity();
            case RX_SIZE -> recv.rxSize();
            default -> throw new FabricException(Errno.ENOPROTOOPT, "shm has no option " + option.cName());
        };
    }

    @Override
    public void setOpt(EndpointOption option, long value) {
        if (option != EndpointOption.MIN_MULTI_RECV || value < 0) {
            throw new FabricException(Errno.ENOPROTOOPT, "shm sets only FI_OPT_MIN_MULTI_RECV (>= 0)");
        }
        recv.setMinMultiRecv(value);
    }

    // ---- data path: provider-util's four hooks ----------------------------------------------------

    @Override
    protected long txFlags() {
        return completionFlag;
    }

    // Sends and receives each go straight to their rooms, with no method shared by the two: one that every
    // send and every receive runs through is invoked twice per round trip, so C2 compiles it on its own
    // before its callers, and its code, the whole send path inlined, is then too big (InlineSmallCode) to
    // inline into them, which leaves a call on both paths. The lock is the domain's, taken only at the
    // threading levels that need it (ShmEndpointState.lock).

    @Override
    protected int postSend(OpRequest req) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        boolean tag = (req.flags & OpFlags.TAGGED) != 0;
        ep.lock();
        try {
            return tag ? tagged.send(req) : msg.send(req);
        } finally {
            ep.unlock();
        }
    }

    @Override
    protected int postRecv(OpRequest req) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        ep.lock();
        try {
            if ((req.flags & OpFlags.TAGGED) != 0) {
                return tagged.recv(req);
            }
            return msg.recv(req);
        } finally {
            ep.unlock();
        }
    }

    @Override
    protected int postRead(OpRequest req) {
        return postRma(req, false);
    }

    @Override
    protected int postWrite(OpRequest req) {
        return postRma(req, true);
    }

    private int postRma(OpRequest req, boolean write) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        ep.lock();
        try {
            return write ? rma.write(req) : rma.read(req);
        } finally {
            ep.unlock();
        }
    }

    @Override
    protected int postAtomic(AtomicRequest req) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        ep.lock();
        try {
            return atomic.post(req);
        } finally {
            ep.unlock();
        }
    }

    @Override
    protected long atomicLimit(int kind, AtomicDatatype datatype) {
        return atomic.limit(kind, datatype);
    }

    // ---- cancel ----------------------------------------------------------------------------------

    @Override
    public int cancel(Object context) {
        ep.lock();
        try {
            return recv.cancel(context);
        } finally {
            ep.unlock();
        }
    }

    // ---- progress (driven by the domain) ---------------------------------------------------------

    int progress() {
        return closed ? 0 : progress.progress();
    }

    void block(long nanos) {
        progress.block(nanos, closed);
    }

    /**
     * Rings this endpoint's doorbell for a waker on another thread, which may hold the domain's endpoint array from
     * before this endpoint closed: once closed, its region may be unmapped under the ring, and nobody sleeps on it.
     */
    void wakeup() {
        if (closed) {
            return;
        }
        try {
            progress.wakeup();
        } catch (IllegalStateException e) {
            if (!closed) {
                throw e;
            }
            // the region closed between the check and the ring ("Already closed"): there was nobody to wake
        }
    }

    /** For a sleep on several endpoints' doorbells ({@link DoorbellSet}): see {@link ShmProgress#armForSleep}. */
    long armForSleep(long nanos) {
        return progress.armForSleep(nanos, closed);
    }

    void sleepDone() {
        progress.sleepDone();
    }

    /** The word beside the doorbell that the last {@link #armForSleep} armed (a peer's ring head), or 0. */
    long consumeWaitAddress() {
        return progress.consumeWaitAddress();
    }

    int consumeWaitExpected() {
        return progress.consumeWaitExpected();
    }

    /** The address of this endpoint's doorbell word in this process. */
    long doorbellAddress() {
        return ep.doorbell.address();
    }

    /** Chunks of this endpoint's messages its receivers pulled through bounce slots rather than read with CMA. */
    long chunksServed() {
        return recv.chunksServed();
    }

    /** Times a message this endpoint pulled found its sender's ring full and asked again from progress. */
    long pullsBlocked() {
        return recv.pullsBlocked();
    }

    /** The split copy of large CMA messages, whose counters say who copied what. */
    ShmSplitCopy splitCopy() {
        return split;
    }

    /** Commands dropped as corrupt (ring headers and command bodies). */
    long corruptDropped() {
        return ep.corruptDropped();
    }

    // ---- close ---------------------------------------------------------------------------------

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        EndpointStatistics.unregister(statistics);
        ep.domain.detach(this);
        ep.lock();
        try {
            inFlight.cancelAll();
            recv.pull().cancelAll();
            recv.cancelAll();
            acks.flush();
        } finally {
            ep.unlock();
        }
        progress.close();
        ep.region.close();
        ep.domain.announceClose();
        ep.futex.close();
        ep.cma.close();
        ep.bindings.releaseAll();
        if (srx != null) {
            srx.detach();
        }
        ep.domain.endpointClosed(this);
        ep.arena.close();
    }

    /** Runs on JFR's periodic thread, without the lock: reads what the endpoint already counts. */
    private void sample(EndpointStatisticsEvent e) {
        e.provider = "shm";
        e.endpoint = ep.address;
        ep.bindings.sample(e);
        e.txInFlight = inFlight.inFlight();
    }

    @Override
    public String toString() {
        return "ShmEndpoint[" + ep.address + ", " + ep.ring + ", " + recv + ", pending=" + inFlight.inFlight()
                + ", corrupt=" + ep.corruptDropped() + "]";
    }
}
