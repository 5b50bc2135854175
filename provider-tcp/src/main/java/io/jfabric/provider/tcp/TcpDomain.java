package io.jfabric.provider.tcp;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;
import io.jfabric.Progress;
import io.jfabric.Threading;
import io.jfabric.spi.RegistrationChecks;
import io.jfabric.util.MrMap;
import io.jfabric.util.UtilMemoryRegion;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tcp domain ({@code fi_domain}): endpoints, CQs, counters and the memory-region registry that
 * target-side RMA is checked against. Data progress is manual (driven by CQ and counter reads) unless the
 * info asks FI_PROGRESS_AUTO. tcp has no address vectors (MSG endpoints only): openAv throws ENOSYS.
 */
final class TcpDomain implements Domain {
    private final TcpFabric fabric;
    private final FabricInfo info;
    private final boolean manual;
    private final boolean locked;
    private final int mrMode;
    final MrMap mrs;
    private final Threading threading;
    private final AtomicInteger children = new AtomicInteger();
    private volatile boolean closed;

    TcpDomain(TcpFabric fabric, FabricInfo info) {
        if (info.epAttr != null && info.epAttr.type != EndpointType.MSG && info.epAttr.type != EndpointType.UNSPEC) {
            throw new FabricException(Errno.EINVAL, "tcp offers FI_EP_MSG only; use tcp;ofi_rxm for RDM");
        }
        this.fabric = fabric;
        this.info = info;
        Progress p = info.domainAttr == null ? Progress.MANUAL : info.domainAttr.dataProgress;
        this.manual = p != Progress.AUTO;
        Threading t = info.domainAttr == null ? Threading.SAFE : info.domainAttr.threading;
        // FI_THREAD_DOMAIN and narrower promise serialised access; only auto progress then needs a lock
        this.locked = !manual || t == Threading.SAFE || t == Threading.UNSPEC || t == Threading.FID;
        this.mrMode = info.domainAttr == null ? 0 : info.domainAttr.mrMode;
        this.threading = t;
        this.mrs = new MrMap(mrMode, 8);
    }

    Threading threading() {
        return threading;
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    @Override
    public Fabric fabric() {
        return fabric;
    }

    TcpFabric tcpFabric() {
        return fabric;
    }

    boolean manualProgress() {
        return manual;
    }

    boolean needsLock() {
        return locked;
    }

    int mrMode() {
        return mrMode;
    }

    @Override
    public Endpoint openEndpoint(FabricInfo epInfo) {
        return openEndpoint(epInfo, null);
    }

    @Override
    public Endpoint openEndpoint(FabricInfo epInfo, Object context) {
        checkOpen();
        TcpEndpoint ep = new TcpEndpoint(this, epInfo == null ? info : epInfo, context);
        children.incrementAndGet();
        fabric.everything.add(ep);
        return ep;
    }

    @Override
    public AddressVector openAv(AvAttr attr) {
        throw new FabricException(Errno.ENOSYS, "tcp has FI_EP_MSG endpoints only, which need no address vector;"
                + " use tcp;ofi_rxm for FI_EP_RDM");
    }

    @Override
    public CompletionQueue openCq(CqAttr attr) {
        checkOpen();
        children.incrementAndGet();
        return TcpCq.open(this, attr == null ? new CqAttr() : attr);
    }

    @Override
    public Counter openCounter(CounterAttr attr) {
        checkOpen();
        children.incrementAndGet();
        return TcpCounter.open(this, attr == null ? new CounterAttr() : attr);
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey, long flags) {
        checkOpen();
        if (segment == null) {
            throw new FabricException(Errno.EINVAL, "cannot register a null segment");
        }
        checkBufferSize(segment);
        return withViews(mrs.register(segment, access, offset, requestedKey, null));
    }

    @Override
    public MemoryRegion registerMemory(MrAttr attr, long flags) {
        checkOpen();
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
            fabric.everything.remove(p);
        }
        children.decrementAndGet();
    }

    private void checkOpen() {
        if (closed) {
            throw new FabricException(Errno.EINVAL, "domain is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (children.get() > 0 || mrs.size() > 0) {
            throw new FabricException(Errno.EBUSY, "domain still has " + children.get()
                    + " open endpoint(s), CQ(s) or counter(s) and " + mrs.size()
                    + " memory region(s); close them first");
        }
        closed = true;
        fabric.childClosed(this);
    }

    @Override
    public String toString() {
        return "TcpDomain[" + (info.domainAttr == null ? "?" : info.domainAttr.name) + ", progress="
                + (manual ? "manual" : "auto") + "]";
    }
}
