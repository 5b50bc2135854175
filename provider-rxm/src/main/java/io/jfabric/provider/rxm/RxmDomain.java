package io.jfabric.provider.rxm;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;
import io.jfabric.Progress;
import io.jfabric.Threading;
import io.jfabric.util.NoLock;
import io.jfabric.util.UtilDomain;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * ofi_rxm's domain ({@code struct rxm_domain}): wraps one core domain. Memory registration is the core's
 * (RMA and rendezvous run on core endpoints, so the core checks keys). One lock per domain serializes the
 * endpoints, CQs, counters and progress of this domain, which is what FI_THREAD_SAFE requires. At
 * FI_THREAD_DOMAIN the application serialises every call into the domain (fi_domain(3)), so the lock is
 * {@link NoLock}; FI_THREAD_COMPLETION and FI_THREAD_ENDPOINT keep it, since every rxm object of the domain shares
 * its one core domain.
 */
final class RxmDomain extends UtilDomain<RxmFabric> {
    final FabricInfo coreInfo;
    final Domain core;
    /** Held around every call into the domain's objects and its core; {@link NoLock} at FI_THREAD_DOMAIN. */
    final Lock lock;
    /** {@link #lock} when it is real, for the CQs to read under; null at FI_THREAD_DOMAIN. */
    final ReentrantLock guard;
    /** Whether the core carries tagged messages on FI_EP_MSG (libfabric's dyn_rbuf precondition). */
    final boolean coreTagged;
    /** Keys for rendezvous registrations, from the top of the key space so they avoid application keys. */
    private final AtomicLong nextKey = new AtomicLong(0x7F00_0000_0000_0000L);

    RxmDomain(RxmFabric fabric, FabricInfo info, FabricInfo coreInfo) {
        super("ofi_rxm domain", fabric, info);
        this.coreInfo = coreInfo;
        this.guard = serialisedByApplication(info) ? null : new ReentrantLock();
        this.lock = guard == null ? NoLock.INSTANCE : guard;
        this.core = fabric.core.openDomain(serialisedCore(coreInfo));
        this.coreTagged = (coreInfo.caps & Caps.TAGGED) != 0 || probeCoreTagged(coreInfo);
    }

    /**
     * The core domain at FI_THREAD_DOMAIN: every call rxm makes into it (posts, CQ and EQ reads, connection
     * setup) already runs under {@link #lock}, so the core's own per-call locks (tcp: its endpoint lock, its
     * CQ's read and write locks, about a lock pair per message each way) would only repeat that.
     */
    private static FabricInfo serialisedCore(FabricInfo coreInfo) {
        if (coreInfo.domainAttr == null) {
            return coreInfo;
        }
        FabricInfo c = coreInfo.copy();
        c.domainAttr.threading = Threading.DOMAIN;
        return c;
    }

    private static boolean serialisedByApplication(FabricInfo info) {
        return info.domainAttr != null && info.domainAttr.threading == Threading.DOMAIN
                && info.domainAttr.dataProgress != Progress.AUTO;
    }

    private static boolean probeCoreTagged(FabricInfo coreInfo) {
        FabricInfo h = FabricInfo.hints();
        h.caps = Caps.MSG | Caps.TAGGED;
        h.epAttr.type = EndpointType.MSG;
        h.fabricAttr.provName = coreInfo.providerName();
        try {
            return !Fabrics.getInfo(h).isEmpty();
        } catch (FabricException e) {
            return false;
        }
    }

    long nextRndvKey() {
        return nextKey.getAndIncrement();
    }

    @Override
    public Endpoint openEndpoint(FabricInfo info, Object context) {
        requireEndpointType(info, EndpointType.RDM, "ofi_rxm opens FI_EP_RDM endpoints only");
        checkOpen("open an endpoint on");
        RxmEndpoint ep = new RxmEndpoint(this, info);
        acquire();
        return ep;
    }

    @Override
    public AddressVector openAv(AvAttr attr) {
        checkOpen("open an AV on");
        RxmAv av = new RxmAv(this, attr);
        acquire();
        return av;
    }

    @Override
    public CompletionQueue openCq(CqAttr attr) {
        checkOpen("open a CQ on");
        RxmCq cq = RxmCq.open(this, attr);
        acquire();
        return cq;
    }

    @Override
    public io.jfabric.SharedRxContext srxContext(io.jfabric.RxAttr attr, Object context) {
        checkOpen("open a shared receive context on");
        RxmSharedRx srx = new RxmSharedRx(this, attr);
        acquire();
        return srx;
    }

    @Override
    public Counter openCounter(CounterAttr attr) {
        checkOpen("open a counter on");
        RxmCounter c = RxmCounter.open(this, attr);
        acquire();
        return c;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey,
                                       long flags) {
        lock.lock();
        try { // the core domain is FI_THREAD_DOMAIN: its calls are serialised by this lock
            return core.registerMemory(segment, access, offset, requestedKey, flags);
        } finally {
            lock.unlock();
        }
    }

    /** The core's regions serve rxm's RMA as they are (rxm_mr_regattr passes through as well). */
    @Override
    public MemoryRegion registerMemory(MrAttr attr, long flags) {
        lock.lock();
        try {
            return core.registerMemory(attr, flags);
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected void doClose() {
        core.close();
        fabric().domainClosed();
    }
}
