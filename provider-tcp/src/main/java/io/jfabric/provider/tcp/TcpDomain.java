package io.jfabric.provider.tcp;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;
import io.jfabric.Progress;
import io.jfabric.Threading;
import io.jfabric.spi.RegistrationChecks;
import io.jfabric.util.MrMap;
import io.jfabric.util.UtilDomain;
import io.jfabric.util.UtilMemoryRegion;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The tcp domain ({@code fi_domain}): endpoints, CQs, counters and the memory-region registry that
 * target-side RMA is checked against. Data progress is manual (driven by CQ and counter reads) unless the
 * info asks FI_PROGRESS_AUTO. tcp has no address vectors (MSG endpoints only): openAv throws ENOSYS.
 */
final class TcpDomain extends UtilDomain<TcpFabric> {
    private final boolean manual;
    private final boolean locked;
    /**
     * Where a lock is needed, one for every endpoint of the domain, as libfabric's tcp serialises a domain's
     * endpoints under its progress lock: then every completion a CQ gets is written under it, and the CQ needs no
     * lock of its own (with two, FI_THREAD_SAFE's 64 B round trip took 0.92-1.01 x fi_pingpong's time against
     * FI_THREAD_DOMAIN's 0.80-0.82 x). Null where the application serialises.
     */
    private final ReentrantLock dataLock;
    final MrMap mrs;
    private final Threading threading;

    TcpDomain(TcpFabric fabric, FabricInfo info) {
        super("tcp domain", fabric, info);
        requireEndpointType(info, EndpointType.MSG, "tcp offers FI_EP_MSG only; use tcp;ofi_rxm for RDM");
        Progress p = info.domainAttr == null ? Progress.MANUAL : info.domainAttr.dataProgress;
        this.manual = p != Progress.AUTO;
        Threading t = info.domainAttr == null ? Threading.SAFE : info.domainAttr.threading;
        // FI_THREAD_DOMAIN and narrower promise serialised access; only auto progress then needs a lock
        this.locked = !manual || t == Threading.SAFE || t == Threading.UNSPEC || t == Threading.FID;
        this.threading = t;
        this.dataLock = locked ? new ReentrantLock() : null;
        this.mrs = newMrMap(8);
        SocketCalls.linkInBackground();
    }

    Threading threading() {
        return threading;
    }

    TcpFabric tcpFabric() {
        return fabric();
    }

    boolean manualProgress() {
        return manual;
    }

    boolean needsLock() {
        return locked;
    }

    /** The lock every endpoint of this domain takes around its calls and progress, or null where none is needed. */
    ReentrantLock dataLock() {
        return dataLock;
    }

    @Override
    public Endpoint openEndpoint(FabricInfo epInfo, Object context) {
        TcpEndpoint ep = new TcpEndpoint(this, endpointInfo(epInfo), context);
        acquire();
        fabric().everything.add(ep);
        return ep;
    }

    @Override
    public AddressVector openAv(AvAttr attr) {
        return refuseAv();
    }

    @Override
    public CompletionQueue openCq(CqAttr attr) {
        acquire();
        return TcpCq.open(this, attr == null ? new CqAttr() : attr);
    }

    @Override
    public Counter openCounter(CounterAttr attr) {
        acquire();
        return TcpCounter.open(this, attr == null ? new CounterAttr() : attr);
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey, long flags) {
        checkOpen("register memory on");
        if (segment == null) {
            throw new FabricException(Errno.EINVAL, "cannot register a null segment");
        }
        checkBufferSize(segment);
        return withViews(mrs.register(segment, access, offset, requestedKey, null));
    }

    /** ofi_rxm over tcp applies its peers' atomics to these regions. */
    @Override
    public UtilMemoryRegion region(long key) {
        return mrs.find(key);
    }

    @Override
    public MemoryRegion registerMemory(MrAttr attr, long flags) {
        checkOpen("register memory on");
        RegistrationChecks.checkAttr("tcp", attr, MrMap.IOV_LIMIT);
        for (int i = 0; i < attr.iovCount; i++) {
            checkBufferSize(attr.iov[i]);
        }
        return withViews(mrs.register(attr));
    }

    private static void checkBufferSize(MemorySegment segment) {
        if (segment.byteSize() > Integer.MAX_VALUE) {
            throw new FabricException(Errno.EINVAL, "tcp registers segments up to 2 GiB - 1 (java.nio buffer limit);"
                    + " register the memory in smaller pieces");
        }
    }

    /** Gives the region the views RMA data moves through, made once so remote accesses need no allocation. */
    private static UtilMemoryRegion withViews(UtilMemoryRegion mr) {
        ByteBuffer[] views = new ByteBuffer[mr.segmentCount()];
        for (int i = 0; i < views.length; i++) {
            views[i] = mr.segment(i).asByteBuffer();
        }
        mr.providerState = views;
        return mr;
    }

    void childClosed(Object child) {
        if (child instanceof Progressable p) {
            fabric().everything.remove(p);
        }
        release();
    }

    @Override
    protected void doClose() {
        fabric().childClosed(this);
    }

    @Override
    public String toString() {
        return "TcpDomain[" + (info().domainAttr == null ? "?" : info().domainAttr.name) + ", progress="
                + (manual ? "manual" : "auto") + "]";
    }
}
