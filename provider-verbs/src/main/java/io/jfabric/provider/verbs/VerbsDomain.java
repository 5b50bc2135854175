package io.jfabric.provider.verbs;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.WaitObj;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;
import io.jfabric.spi.RegistrationChecks;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.generated.ibv_mr;
import io.jfabric.provider.verbs.ffi.verbs_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import io.jfabric.util.MrMap;
import io.jfabric.util.RegisteredMemory;
import io.jfabric.util.UtilDomain;
import io.jfabric.util.UtilMemoryRegion;

/**
 * Mirrors libfabric's verbs domain: one RDMA device (the ibv_context rdma_cm uses for it) and a
 * protection domain. Memory registration is {@code ibv_reg_mr} of native segments (FI_MR_LOCAL,
 * VIRT_ADDR, ALLOCATED, PROV_KEY). No AVs or counters on FI_EP_MSG, as libfabric's verbs.
 */
final class VerbsDomain extends UtilDomain<VerbsFabric> {
    private final VerbsDevice device;
    private final MemorySegment context;
    private final MemorySegment pd;
    /** Null when FI_MR_CACHE_MAX_COUNT is 0. */
    private final MrCache<MemorySegment> mrCache;
    private final boolean cacheRemote;
    /** What the threading level needs around posts and CQ progress (VerbsDataLock). */
    private final VerbsDataLock dataLock;
    /**
     * The regions peers may address, by rkey: ofi_rxm over verbs applies its peers' atomics in software on the
     * target (RxmAtomic), so it needs what the adapter checks for RMA, the access and bounds of each key.
     */
    private final MrMap remoteRegions = new MrMap(VerbsInfos.MR_MODE, 4);

    VerbsDomain(VerbsFabric fabric, FabricInfo info, VerbsDevice device) {
        super("verbs domain " + device.name(), fabric, info);
        this.device = device;
        this.dataLock = VerbsDataLock.of(info.domainAttr == null ? null : info.domainAttr.threading);
        this.context = ibv_context.reinterpret(device.context());
        MemorySegment p = verbs_h.ibv_alloc_pd(context);
        if (Native.isNull(p)) {
            throw new FabricException(Errno.ENOMEM, "ibv_alloc_pd on " + device.name() + " failed");
        }
        this.pd = p;
        int maxCount = VerbsParams.MR_CACHE_MAX_COUNT.get();
        cacheRemote = VerbsParams.MR_CACHE_REMOTE.get();
        mrCache = maxCount <= 0 ? null : new MrCache<>(new CacheRegistrar(), maxCount,
                VerbsParams.MR_CACHE_MAX_SIZE.get());
        fabric.acquire();
    }

    VerbsDevice device() {
        return device;
    }

    VerbsDataLock dataLock() {
        return dataLock;
    }

    MemorySegment context() {
        return context;
    }

    MemorySegment pd() {
        return pd;
    }

    @Override
    public Endpoint openEndpoint(FabricInfo info, Object context) {
        return new VerbsEndpoint(this, endpointInfo(info), context);
    }

    /** {@code fi_srx_context}: an {@code ibv_srq} on this domain's protection domain ({@link VerbsSharedRx}). */
    @Override
    public io.jfabric.SharedRxContext srxContext(io.jfabric.RxAttr attr, Object context) {
        checkOpen("open a shared receive context on");
        return new VerbsSharedRx(this, attr);
    }

    @Override
    public AddressVector openAv(AvAttr attr) {
        return refuseAv();
    }

    @Override
    public CompletionQueue openCq(CqAttr attr) {
        checkOpen("open a CQ on");
        if (attr != null && attr.waitObj == WaitObj.POLLFD) {
            throw new FabricException(Errno.ENOSYS, "verbs CQs do not support wait object FI_WAIT_POLLFD; use "
                    + "FI_WAIT_FD (waitFd), FI_WAIT_SET, FI_WAIT_UNSPEC or FI_WAIT_NONE");
        }
        return new VerbsCq(this, attr == null ? new CqAttr() : attr);
    }

    @Override
    public Counter openCounter(CounterAttr attr) {
        throw new FabricException(Errno.ENOSYS, "the verbs provider has no counters (as libfabric's verbs for MSG)");
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey, long flags) {
        return register(segment, access, offset, null);
    }

    /**
     * {@code fi_mr_regattr} of one segment: ibv_reg_mr registers one contiguous range under one rkey, so a
     * region of several segments (which peers would address through one key) is refused with EINVAL, as
     * libfabric's verbs does beyond its mr_iov_limit of 1.
     */
    @Override
    public MemoryRegion registerMemory(MrAttr attr, long flags) {
        RegistrationChecks.checkAttr("verbs", attr, 1); // VerbsInfos' mr_iov_limit
        return register(attr.iov[0], attr.access, attr.offset, attr.context);
    }

    private MemoryRegion register(MemorySegment segment, long access, long offset, Object context) {
        checkOpen("register memory on");
        // the NIC reads and writes registered memory directly, and the GC moves heap arrays
        RegistrationChecks.requireNative("verbs", segment);
        if (segment.byteSize() == 0) {
            throw new FabricException(Errno.EINVAL, "cannot register an empty segment");
        }
        boolean remote = access == 0 || (access & (Access.REMOTE_READ | Access.REMOTE_WRITE)) != 0;
        if (mrCache != null && (!remote || cacheRemote)) {
            MrCache.Entry<MemorySegment> e;
            synchronized (this) {
                e = mrCache.acquire(segment);
            }
            acquire();
            return addressable(new VerbsMemoryRegion(this, segment, access, offset, context, e.registration, e),
                    remote);
        }
        int ibAccess = verbs_h.IBV_ACCESS_LOCAL_WRITE;
        if (access == 0 || (access & Access.REMOTE_READ) != 0) {
            ibAccess |= verbs_h.IBV_ACCESS_REMOTE_READ;
        }
        if (access == 0 || (access & Access.REMOTE_WRITE) != 0) {
            ibAccess |= verbs_h.IBV_ACCESS_REMOTE_WRITE | remoteAtomic();
        }
        MemorySegment mr = regMr(segment, segment.byteSize(), ibAccess);
        acquire();
        return addressable(new VerbsMemoryRegion(this, segment, access, offset, context, mr, null), remote);
    }

    /**
     * Enters a region with remote access in {@link #remoteRegions}. A cached registration shared by two regions
     * has one rkey, which the adapter lets into the whole cached range anyway; the first open region answers it.
     */
    private VerbsMemoryRegion addressable(VerbsMemoryRegion r, boolean remote) {
        if (remote) {
            synchronized (remoteRegions) {
                if (remoteRegions.find(r.key()) == null) {
                    RegisteredMemory m = r.registered();
                    r.addressable(remoteRegions.registerAssigned(m.segments()[0], m.access(), m.offset(), r.key(),
                            m.context()));
                }
            }
        }
        return r;
    }

    /** ofi_rxm over verbs applies its peers' atomics to these regions. */
    @Override
    public UtilMemoryRegion region(long key) {
        return remoteRegions.find(key);
    }

    /**
     * FI_REMOTE_WRITE lets peers' RC atomics in too, as libfabric's verbs grants it: the adapter checks one right,
     * IBV_ACCESS_REMOTE_ATOMIC, for every atomic, fetching or not (docs/differences.md).
     */
    private int remoteAtomic() {
        return device.hasAtomics() ? verbs_h.IBV_ACCESS_REMOTE_ATOMIC : 0;
    }

    private MemorySegment regMr(MemorySegment addr, long length, int ibAccess) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment err = NativeLibrary.allocateCaptureState(a);
            return Native.checkPtr(verbs_h.ibv_reg_mr(err, pd, addr, length, ibAccess), err,
                    "ibv_reg_mr of " + length + " bytes on " + device.name()
                            + " (check ulimit -l: registered memory is pinned)");
        }
    }

    /** A cached registration's user closed its MemoryRegion. */
    synchronized void releaseCached(MrCache.Entry<MemorySegment> e) {
        mrCache.release(e);
    }

    /** Registers page-rounded ranges for the cache: local write always, remote rights when those are cached. */
    private final class CacheRegistrar implements MrCache.Registrar<MemorySegment> {
        @Override
        public MemorySegment register(long address, long length) {
            int ibAccess = verbs_h.IBV_ACCESS_LOCAL_WRITE
                    | (cacheRemote ? verbs_h.IBV_ACCESS_REMOTE_READ | verbs_h.IBV_ACCESS_REMOTE_WRITE | remoteAtomic() : 0);
            return regMr(MemorySegment.ofAddress(address), length, ibAccess);
        }

        @Override
        public void deregister(MemorySegment mr) {
            int rc = verbs_h.ibv_dereg_mr(ibv_mr.reinterpret(mr));
            if (rc != 0) {
                throw new FabricException(rc, "ibv_dereg_mr of a cached registration failed: " + Native.strerror(rc));
            }
        }
    }

    @Override
    protected void doClose() {
        if (mrCache != null) {
            synchronized (this) {
                mrCache.flush();
            }
        }
        Native.checkVerbs(verbs_h.ibv_dealloc_pd(pd), "ibv_dealloc_pd");
        fabric().release();
    }
}
