package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;
import io.jfabric.Progress;
import io.jfabric.Threading;
import io.jfabric.spi.RegistrationChecks;
import io.jfabric.util.MrMap;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilDomain;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shm domain ({@code fi_domain}): this process's view of the node. It owns the MR key map that
 * peers' RMA is checked against, the peers this process has mapped, and progress: manual progress
 * runs inside CQ reads (and sleeps on the endpoint's futex in sread), auto progress runs a thread.
 *
 * <p>Threading: at FI_THREAD_DOMAIN the application serialises its calls, so the data path takes no lock. At
 * FI_THREAD_SAFE (what hints with no threading level get, as in libfabric), at FID, ENDPOINT and COMPLETION (which
 * let threads use different objects of one domain at once while endpoints share peers and CQs), and with auto
 * progress, one domain lock orders every data-path call and progress; CQs then also take concurrent readers
 * (FI_THREAD_SAFE).
 */
final class ShmDomain extends UtilDomain<ShmFabric> implements ProgressHook {

    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("shm");

    final MrMap mrMap;
    final Path directory;
    final RegionLayout layout;
    final boolean cmaAllowed;
    final int inlineSize;
    final int unexpectedLimit;
    /** FI_SHM_SPLIT_COPY_MIN, Long.MAX_VALUE when 0 (off). */
    final long splitCopyMin;
    private final CopyOnWriteArrayList<ShmEndpoint> endpoints = new CopyOnWriteArrayList<>();
    private volatile ShmEndpoint[] endpointArray = new ShmEndpoint[0];
    /** Where a waiter sleeps when the domain has several endpoints. */
    private final DoorbellSet doorbells = new DoorbellSet();
    private final Map<String, Peer> peersByName = new HashMap<>();
    /**
     * Peers that were gone when their name was mapped again: AV entries and operations in flight may still hold
     * them (and find them gone), so their mappings and pidfds close with the domain, under peersByName's lock.
     */
    private final List<Peer> replacedPeers = new ArrayList<>();
    private final Long2ObjectHashMap<Peer> peersBySender = new Long2ObjectHashMap<>();
    /**
     * Null at FI_THREAD_DOMAIN with manual progress (no lock needed); otherwise held by every data-path
     * call, by progress and by the progress thread.
     */
    final ReentrantLock lock;
    /** FI_THREAD_SAFE: CQs may be read by several threads at once. */
    private final boolean threadSafe;
    /** Null with manual progress. */
    private final ShmProgressThread progressThread;
    /**
     * A {@link #wakeup} that no sleep has ended yet. A doorbell's ring ends only a sleep that is already armed, but
     * a waker (a wait set's wakeup, an event loop's task) may come between its waiter's last look at what it waits
     * for and the arming of the doorbell; a sleep checks this after arming, so that such a wake-up is not lost (as
     * Selector.wakeup is kept for the next select). Cleared when a sleep ends, after which the waiter looks again.
     */
    private volatile boolean wakeRequested;
    /** How many of this domain's peers' processes have exited; written by the peer-exit watcher's thread only. */
    private volatile int peerExits;

    ShmDomain(ShmFabric fabric, FabricInfo info) {
        super("shm domain", fabric, info);
        requireEndpointType(info, EndpointType.RDM, "shm offers FI_EP_RDM only");
        this.mrMap = newMrMap(8);
        this.directory = Path.of(ShmParams.DIRECTORY.get());
        this.layout = ShmParams.layout();
        this.cmaAllowed = !ShmParams.DISABLE_CMA.get();
        // never more than a bounce slot: a receiver keeps an unexpected inline message in a slot-sized buffer
        this.inlineSize = (int) Math.min(Math.min(ShmParams.INLINE_SIZE.get(), layout.ringCapacity() / 8 - 128),
                layout.bounceSlotSize());
        this.unexpectedLimit = ShmParams.UNEXPECTED.get();
        long splitMin = ShmParams.SPLIT_COPY_MIN.get();
        this.splitCopyMin = splitMin <= 0 ? Long.MAX_VALUE : splitMin;
        boolean auto = info.domainAttr != null && info.domainAttr.dataProgress == Progress.AUTO;
        Threading threading = info.domainAttr == null || info.domainAttr.threading == null
                ? Threading.DOMAIN : info.domainAttr.threading;
        this.threadSafe = threading == Threading.SAFE;
        boolean concurrent = threadSafe || threading == Threading.FID || threading == Threading.ENDPOINT
                || threading == Threading.COMPLETION;
        this.lock = auto || concurrent ? new ReentrantLock() : null;
        if (auto) {
            progressThread = new ShmProgressThread(this);
        } else {
            progressThread = null;
        }
    }

    /** Takes the domain lock where the threading level or auto progress has one (AV changes, shared receives). */
    void lockData() {
        if (lock != null) {
            lock.lock();
        }
    }

    void unlockData() {
        if (lock != null) {
            lock.unlock();
        }
    }

    boolean autoProgress() {
        return progressThread != null;
    }

    @Override
    public Endpoint openEndpoint(FabricInfo info, Object context) {
        FabricInfo epInfo = endpointInfo(info);
        acquire();
        try {
            ShmEndpoint ep = new ShmEndpoint(this, epInfo);
            endpoints.add(ep);
            endpointArray = endpoints.toArray(new ShmEndpoint[0]);
            return ep;
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /** Takes a closing endpoint out of progress (before its region goes away). */
    void detach(ShmEndpoint ep) {
        if (lock != null) {
            lock.lock();
        }
        try {
            endpoints.remove(ep);
            endpointArray = endpoints.toArray(new ShmEndpoint[0]);
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
        // the progress thread may be asleep on this endpoint's futex: wake it until it has left
        if (progressThread != null) {
            progressThread.release(ep);
        }
    }

    void endpointClosed(ShmEndpoint ep) {
        release();
    }

    @Override
    public AddressVector openAv(AvAttr attr) {
        checkOpen("open an AV on");
        if (attr != null && attr.type == AvType.MAP) {
            LOG.log(System.Logger.Level.DEBUG, "shm AV: FI_AV_MAP requested, fi_addr values are table indexes");
        }
        acquire();
        return new ShmAv(this, attr == null ? AvAttr.of(AvType.TABLE) : attr);
    }

    @Override
    public CompletionQueue openCq(CqAttr attr) {
        checkOpen("open a CQ on");
        boolean auto = autoProgress();
        acquire();
        try {
            if (lock == null) {
                // FI_THREAD_DOMAIN, manual progress: the application serialises every write and read
                return new ShmCq(this, attr, this, false, false, true);
            }
            if (!auto) {
                // every completion is written under the domain lock (progress, posts, AV and close paths), so
                // the CQ takes that lock instead of two of its own
                return new ShmCq(this, attr, this, lock, threadSafe);
            }
            // the progress thread writes completions; readers take no lock that would wait for its pass
            return new ShmCq(this, attr, ProgressHook.NONE, true, threadSafe, false);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    @Override
    public io.jfabric.SharedRxContext srxContext(io.jfabric.RxAttr attr, Object context) {
        checkOpen("open a shared receive context on");
        acquire();
        return new ShmSharedRx(this, attr);
    }

    @Override
    public Counter openCounter(CounterAttr attr) {
        checkOpen("open a counter on");
        acquire();
        try {
            return new ShmCounter(this, attr == null ? CounterAttr.defaults() : attr,
                    autoProgress() ? ProgressHook.NONE : this);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey, long flags) {
        checkOpen("register memory on");
        // peers reach registered memory with process_vm_readv/writev, which needs a fixed address
        RegistrationChecks.requireNative("shm", segment);
        return mrMap.register(segment, access, offset, requestedKey, null);
    }

    @Override
    public MemoryRegion registerMemory(MrAttr attr, long flags) {
        checkOpen("register memory on");
        RegistrationChecks.checkAttr("shm", attr, MrMap.IOV_LIMIT);
        for (int i = 0; i < attr.iovCount; i++) {
            RegistrationChecks.requireNative("shm", attr.iov[i]);
        }
        return mrMap.register(attr);
    }

    // ---- peers ---------------------------------------------------------------------------------

    /** Maps the region called {@code name} (control path); throws ShmException when it cannot. */
    Peer peerByName(String name) {
        synchronized (peersByName) {
            Peer p = peersByName.get(name);
            if (p != null && !p.gone()) {
                return p;
            }
            long id = ShmCm.senderIdOf(name);
            ShmRegion region = ShmRegion.open(directory, name);
            Peer replaced = p;
            p = new Peer(name, region, id, cmaAllowed);
            p.watchExit(this::peerExited);
            peersByName.put(name, p);
            if (replaced != null) {
                replacedPeers.add(replaced);
            }
            if (id != -1) {
                synchronized (peersBySender) {
                    peersBySender.put(id, p);
                }
            }
            return p;
        }
    }

    /**
     * A peer's process exited (the peer-exit watcher's thread): the endpoints' next progress scans for the operations
     * and receives bound to it, and any asleep wake to do so.
     */
    private void peerExited() {
        peerExits++; // one writer
        ringEndpoints();
    }

    /**
     * An endpoint of this domain closed (its region already says so): every live peer the domain has mapped is told,
     * so that one waiting on that endpoint finds it gone at once rather than at its next liveness scan.
     */
    void announceClose() {
        synchronized (peersByName) {
            for (Peer p : peersByName.values()) {
                if (!p.gone()) {
                    p.region.noticeClose();
                    p.doorbell.ring();
                }
            }
        }
    }

    /** Changes when a peer's process exits: progress compares it with the count its last liveness scan saw. */
    int peerExits() {
        return peerExits;
    }

    /** Whether any peer this domain has mapped is gone (control path: it may read /proc for each). */
    boolean aKnownPeerDied(long now, long intervalNanos) {
        synchronized (peersByName) {
            for (Peer p : peersByName.values()) {
                if (p.checkAlive(now, intervalNanos)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The peer that sent a command (its region named by the sender id), mapped on first use; null if gone. */
    Peer peerBySender(long senderId) {
        Peer p;
        synchronized (peersBySender) {
            p = peersBySender.get(senderId);
        }
        if (p != null) {
            return p;
        }
        long pid = senderId >>> 32;
        long start = ProcessIdentity.startTime(pid);
        if (start == ProcessIdentity.GONE) {
            return null;
        }
        String name = ShmRegion.PREFIX + pid + "-" + start + "-" + (int) senderId;
        try {
            return peerByName(name);
        } catch (ShmException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot map sender {0}: {1}", name, e.getMessage());
            return null;
        }
    }

    // ---- progress --------------------------------------------------------------------------------

    @Override
    public int progress() {
        ReentrantLock l = lock;
        if (l == null || l.isHeldByCurrentThread()) {
            // a guarded CQ's read holds the lock already: taking it again would cost a failed CAS and a store
            return progressEndpoints();
        }
        l.lock();
        try {
            return progressEndpoints();
        } finally {
            l.unlock();
        }
    }

    /** The endpoints progress runs over (a new array whenever one opens or closes). */
    ShmEndpoint[] endpoints() {
        return endpointArray;
    }

    int progressEndpoints() {
        ShmEndpoint[] eps = endpointArray;
        int work = 0;
        for (ShmEndpoint ep : eps) {
            work += ep.progress();
        }
        return work;
    }

    @Override
    public boolean canBlock() {
        int n = endpointArray.length;
        return n == 1 || DoorbellSet.canSleepOn(n);
    }

    @Override
    public void block(long nanos) {
        ShmEndpoint[] eps = endpointArray;
        if (eps.length == 1) {
            eps[0].block(nanos);
        } else if (eps.length == 0 || !doorbells.sleep(eps, nanos)) {
            LockSupport.parkNanos(Math.min(nanos, 50_000));
        }
    }

    @Override
    public void wakeup() {
        wakeRequested = true; // before the doorbells are read (ShmProgress.armForSleep reads it after arming)
        ringEndpoints();
    }

    /** Rings every endpoint's doorbell, from any thread: a sleep under way on any of them ends. */
    private void ringEndpoints() {
        for (ShmEndpoint ep : endpointArray) {
            ep.wakeup();
        }
    }

    /** Whether a {@link #wakeup} came that no sleep has ended yet: a sleep about to begin must not. */
    boolean wakeRequested() {
        return wakeRequested;
    }

    /** A sleep ended (or was skipped): its waiter looks at its condition again, so the pending wake-up is spent. */
    void wakeSeen() {
        if (wakeRequested) { // no store on the common path: the line stays shared
            wakeRequested = false;
        }
    }

    /** {@code fi_close} once nothing is open on the domain (the base refuses with EBUSY before that). */
    @Override
    protected void doClose() {
        if (progressThread != null) {
            progressThread.stop();
        }
        doorbells.close();
        synchronized (peersByName) {
            for (Peer p : peersByName.values()) {
                p.close();
            }
            peersByName.clear();
            replacedPeers.forEach(Peer::close);
            replacedPeers.clear();
        }
        synchronized (peersBySender) {
            peersBySender.clear();
        }
        fabric().release();
    }

    @Override
    public String toString() {
        return "ShmDomain[endpoints=" + endpoints + ", peers=" + peersByName.keySet() + "]";
    }
}
