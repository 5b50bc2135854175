package io.jfabric.provider.tcp;

import io.jfabric.AddressVector;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.OpFlags;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.NoLock;
import io.jfabric.util.jfr.EndpointStatistics;
import io.jfabric.util.jfr.EndpointStatisticsEvent;
import io.jfabric.util.OpRequest;
import io.jfabric.util.UtilEndpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * The tcp FI_EP_MSG endpoint ({@code fi_endpoint}), libfabric tcp's {@code xnet_ep.c}: the facade and the
 * control path (bind, enable, connect/accept/shutdown through {@link TcpCm}, options, cancel, close). The 27
 * data-path calls come from {@link UtilEndpoint}, which takes the endpoint's lock around the hooks, and go to
 * {@link TcpMsg}, {@link TcpTagged} and {@link TcpRma}; one {@link TcpProgress} moves the connection's data and
 * {@link TcpCompletions} reports it.
 *
 * <p>Completions go to the bound CQs (a transmit completion only with FI_COMPLETION when the CQ was bound
 * with FI_SELECTIVE_COMPLETION; never for inject), and bound counters count every completion. Errors are
 * always reported. Data-path calls return 0 or a negative errno: -EAGAIN while connecting or when the queue
 * or CQ is full, -ENOTCONN before connect or after shutdown.
 */
final class TcpEndpoint extends UtilEndpoint implements Progressable {
    private final TcpDomain domain;
    private final FabricInfo info;
    private final Lock lock;
    private final long txOpFlags;
    private final long rxOpFlags;

    private final EndpointBindings bindings = new EndpointBindings("tcp endpoint");
    /** The progress lists this endpoint joined when its CQs, counters and EQ were bound, left on close. */
    private final List<ProgressList> drivenBy = new ArrayList<>();
    private final TcpProgress engine;
    private final TcpCm cm;
    private final TcpMsg msg;
    private final TcpTagged tagged;
    private final TcpRma rma;

    private boolean enabled;
    private volatile boolean closed;
    /** This endpoint's jfabric.EndpointStatistics sample; held here so the registry's weak reference lives as long as we do. */
    private final EndpointStatistics.Source statistics = this::sample;

    TcpEndpoint(TcpDomain domain, FabricInfo info, Object context) {
        this.domain = domain;
        this.info = info;
        this.lock = domain.needsLock() ? domain.dataLock() : NoLock.INSTANCE;
        lockHooksWith(lock);
        honourTxLevels(TcpProvider.TX_LEVELS, info.txAttr == null ? 0 : info.txAttr.opFlags, "tcp endpoint");
        int txSize = (int) Math.max(1, Math.min(info.txAttr == null || info.txAttr.size == 0
                ? TcpParams.TX_SIZE.get() : info.txAttr.size, 1 << 16));
        int rxSize = (int) Math.max(1, Math.min(info.rxAttr == null || info.rxAttr.size == 0
                ? TcpParams.RX_SIZE.get() : info.rxAttr.size, 1 << 16));
        long max = TcpParams.MAX_MSG_SIZE.get();
        if (info.epAttr != null && info.epAttr.maxMsgSize > 0) {
            max = Math.min(max, info.epAttr.maxMsgSize);
        }
        boolean taggedCap = (info.caps & Caps.TAGGED) != 0;
        this.txOpFlags = info.txAttr == null ? 0 : info.txAttr.opFlags;
        this.rxOpFlags = info.rxAttr == null ? 0 : info.rxAttr.opFlags;
        TcpCompletions completions = new TcpCompletions(bindings);
        this.engine = new TcpProgress(completions, new TcpRmaTarget(domain.mrs), txSize, rxSize,
                (int) TcpParams.PREFETCH.get(), max, taggedCap,
                domain.manualProgress() ? domain.tcpFabric().holds : null);
        this.cm = new TcpCm(this, info, context, domain.tcpFabric(), engine, bindings);
        completions.reportEndTo(cm);
        TcpTxPath txPath = new TcpTxPath(cm, engine, bindings, max);
        this.msg = new TcpMsg(txPath, engine, cm, bindings, domain);
        this.tagged = new TcpTagged(msg, taggedCap);
        this.rma = new TcpRma(txPath, engine);
    }

    // =================================================================== data path: UtilEndpoint's hooks

    @Override
    protected long txFlags() {
        return txOpFlags;
    }

    @Override
    protected long rxFlags() {
        return rxOpFlags;
    }

    @Override
    protected int postSend(OpRequest op) {
        return (op.flags & OpFlags.TAGGED) != 0 ? tagged.send(op) : msg.send(op, false);
    }

    @Override
    protected int postRecv(OpRequest op) {
        return (op.flags & OpFlags.TAGGED) != 0 ? tagged.recv(op) : msg.recv(op, false);
    }

    @Override
    protected int postRead(OpRequest op) {
        return rma.read(op);
    }

    @Override
    protected int postWrite(OpRequest op) {
        return rma.write(op);
    }

    // =================================================================== binding and enable

    @Override
    public void bind(CompletionQueue cq, long flags) {
        if (!(cq instanceof TcpCq c)) {
            throw new FabricException(Errno.EINVAL, "the CQ must come from the same tcp domain");
        }
        lock.lock();
        try {
            checkNotEnabled("bind a CQ");
            // refuses a second CQ for a direction before binding anything, so a refused bind changes nothing
            bindings.bindCq(c, flags);
            drivenBy(c.progress);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void bind(EventQueue q) {
        if (!(q instanceof TcpEq e)) {
            throw new FabricException(Errno.EINVAL, "the EQ must come from the same tcp fabric");
        }
        lock.lock();
        try {
            bindings.bindEq(e);
            drivenBy(e.progress);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void bind(AddressVector av) {
        throw new FabricException(Errno.EINVAL, "FI_EP_MSG endpoints take no address vector");
    }

    @Override
    public void bind(Counter counter, long flags) {
        if (!(counter instanceof TcpCounter c)) {
            throw new FabricException(Errno.EINVAL, "the counter must come from the same tcp domain");
        }
        lock.lock();
        try {
            checkNotEnabled("bind a counter");
            bindings.bindCounter(c, flags);
            drivenBy(c.progress);
        } finally {
            lock.unlock();
        }
    }

    private void drivenBy(ProgressList list) {
        if (!drivenBy.contains(list)) {
            drivenBy.add(list);
            list.add(this);
        }
    }

    private void checkNotEnabled(String what) {
        if (enabled) {
            throw new FabricException(Errno.EINVAL, "cannot " + what + " after fi_enable");
        }
    }

    @Override
    public void enable() {
        lock.lock();
        try {
            if (bindings.txCq() == null && bindings.rxCq() == null) {
                throw new FabricException(Errno.ENOCQ, "bind a CQ (FI_TRANSMIT and/or FI_RECV) before fi_enable");
            }
            bindings.checkEnable(false, false, false, true);
            enabled = true;
            EndpointStatistics.register(statistics);
        } finally {
            lock.unlock();
        }
    }

    // =================================================================== connection management

    @Override
    public void connect(byte[] addr, byte[] data) {
        lock.lock();
        try {
            if (!enabled) {
                enable();
            }
            cm.connect(addr, data);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void accept(byte[] data) {
        lock.lock();
        try {
            cm.checkCanAccept();
            if (!enabled) {
                enable();
            }
            cm.accept(data);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void shutdown(long flags) {
        lock.lock();
        try {
            cm.shutdown();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public byte[] getName() {
        return cm.localName();
    }

    @Override
    public void setName(byte[] addr) {
        throw new FabricException(Errno.ENOSYS, "set the source address through info.srcAddr when opening the endpoint");
    }

    @Override
    public byte[] getPeer() {
        return cm.peerName();
    }

    @Override
    public long getOpt(EndpointOption option) {
        return switch (option) {
            case CM_DATA_SIZE -> CmMessage.MAX_DATA_SIZE;
            case TX_SIZE -> info.txAttr == null ? 0 : info.txAttr.size;
            case RX_SIZE -> info.rxAttr == null ? 0 : info.rxAttr.size;
            case COALESCE_SENDS -> engine.coalescesSends() ? 1 : 0;
            default -> throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " is not supported by tcp");
        };
    }

    @Override
    public void setOpt(EndpointOption option, long value) {
        if (option != EndpointOption.COALESCE_SENDS) {
            throw new FabricException(Errno.ENOPROTOOPT, option.cName() + " cannot be set on tcp");
        }
        lock.lock();
        try {
            engine.coalesceSends(value != 0);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int cancel(Object ctx) {
        lock.lock();
        try {
            return engine.cancelRecv(ctx) ? 0 : -Errno.ENOENT;
        } finally {
            lock.unlock();
        }
    }

    // =================================================================== progress (Progressable)

    @Override
    public int progressControl() {
        if (!lock.tryLock()) {
            return 0;
        }
        try {
            return cm.step();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int progressData() {
        if (!lock.tryLock()) {
            return 0;
        }
        try {
            if (cm.isConnected()) {
                return engine.pass();
            }
            return engine.flushAfterFailure();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void watchIdleIn(QuietSet set) {
        engine.connection().watchIdleIn(set);
    }

    /** The connection, for tests that look at its system calls. */
    TcpConnection connection() {
        return engine.connection();
    }

    /** Transmit entries taken (queued, being written or waiting), for tests that fill the queue. */
    int txInFlight() {
        return engine.tx().inFlight();
    }

    // =================================================================== close

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            cm.close();
            for (ProgressList list : drivenBy) {
                list.remove(this);
            }
            drivenBy.clear();
            EndpointStatistics.unregister(statistics);
            bindings.releaseAll();
        } finally {
            lock.unlock();
        }
        domain.childClosed(this);
    }

    /** Runs on JFR's periodic thread, without the lock: reads what the endpoint already counts. */
    private void sample(EndpointStatisticsEvent e) {
        e.provider = TcpParams.PROV;
        cm.sample(e);
        bindings.sample(e);
        e.txInFlight = engine.tx().inFlight();
    }

    /** State for failure messages in tests and logs. */
    String describe() {
        return "TcpEndpoint[" + cm.describe() + ", " + engine.describe() + "]";
    }

    @Override
    public String toString() {
        return describe();
    }
}
