package io.jfabric.provider.libfabric;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;
import io.jfabric.Threading;
import io.jfabric.spi.RegistrationChecks;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.LibC;
import io.jfabric.provider.libfabric.ffi.generated.fi_av_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_cntr_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_cq_attr;
import io.jfabric.provider.libfabric.ffi.generated.iovec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fid_domain} of a native provider. It owns the {@link ContextSlots} of every
 * operation posted on its endpoints, so a completion queue of this domain can map any
 * {@code op_context} back to the Java context.
 */
final class LibfabricDomain extends FidObject implements Domain {
    private final FabricInfo info;
    final ContextSlots slots;
    /** Whether several threads may use one object at once (FI_THREAD_SAFE): shared scratch then needs a lock. */
    final boolean threadSafe;

    private LibfabricDomain(LibfabricFabric fabric, MemorySegment fid, FabricInfo info) {
        super(fabric, fid);
        hold(fabric);
        this.info = info.copy();
        this.slots = new ContextSlots(arena, fabric.contextSlots);
        this.threadSafe = info.domainAttr == null || info.domainAttr.threading == Threading.SAFE
                || info.domainAttr.threading == Threading.UNSPEC;
    }

    static LibfabricDomain open(LibfabricFabric fabric, FabricInfo info) {
        MemorySegment n = InfoMapper.toNative(info, fabric.nativeName(info));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_domain(fabric.fid, n, out, MemorySegment.NULL);
            ReturnCodes.check(rc, "fi_domain", "open the domain with an info of the same provider and fabric");
            LibfabricDomain d = new LibfabricDomain(fabric, out.get(Fabric_h.C_POINTER, 0), info);
            d.keepOpenedFrom(n);
            n = MemorySegment.NULL;
            return d;
        } finally {
            freeUnlessKept(n);
        }
    }

    @Override
    String kind() {
        return "domain";
    }

    @Override
    public FabricInfo info() {
        return info.copy();
    }

    @Override
    public Fabric fabric() {
        return fabric;
    }

    @Override
    public Endpoint openEndpoint(FabricInfo info) {
        checkOpen();
        return openEndpoint(info, null);
    }

    @Override
    public Endpoint openEndpoint(FabricInfo info, Object context) {
        checkOpen();
        MemorySegment n = InfoMapper.toNative(info, fabric.nativeName(info));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_endpoint(fid, n, out, MemorySegment.NULL);
            ReturnCodes.check(rc, "fi_endpoint", "open the endpoint with an info of this domain's provider");
            LibfabricEndpoint ep = new LibfabricEndpoint(this, out.get(Fabric_h.C_POINTER, 0), info, context);
            ep.keepOpenedFrom(n);
            n = MemorySegment.NULL;
            return ep;
        } finally {
            freeUnlessKept(n);
        }
    }

    @Override
    public AddressVector openAv(AvAttr attr) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment na = fi_av_attr.allocate(a);
            fi_av_attr.type(na, attr.type.value());
            fi_av_attr.count(na, attr.count);
            fi_av_attr.flags(na, attr.flags);
            if (attr.name != null) {
                fi_av_attr.name(na, a.allocateFrom(attr.name));
            }
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_av_open(fid, na, out, MemorySegment.NULL);
            ReturnCodes.check(rc, "fi_av_open", "check the AvAttr type against the info's av_type");
            return new LibfabricAv(this, out.get(Fabric_h.C_POINTER, 0), attr);
        }
    }

    @Override
    public CompletionQueue openCq(CqAttr attr) {
        checkOpen();
        io.jfabric.util.UtilWaitSet set = WaitMembership.setOf("CQ", attr.waitObj, attr.waitSet);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment na = fi_cq_attr.allocate(a);
            fi_cq_attr.size(na, attr.size);
            fi_cq_attr.flags(na, attr.flags);
            // the decoder must know the entry size, so UNSPEC becomes libfabric's usual default, CONTEXT
            fi_cq_attr.format(na, (attr.format == io.jfabric.CqFormat.UNSPEC ? io.jfabric.CqFormat.CONTEXT
                    : attr.format).value());
            fi_cq_attr.wait_obj(na, WaitMembership.nativeWaitObj(attr.waitObj));
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_cq_open(fid, na, out, MemorySegment.NULL);
            if (WaitMembership.refusedFd(attr.waitObj, rc)) {
                fi_cq_attr.wait_obj(na, io.jfabric.WaitObj.NONE.value());
                rc = FabricInline.fi_cq_open(fid, na, out, MemorySegment.NULL);
            }
            ReturnCodes.check(rc, "fi_cq_open", "check the CqAttr (format, size, wait object)");
            return new LibfabricCq(this, out.get(Fabric_h.C_POINTER, 0), attr, set);
        }
    }

    @Override
    public Counter openCounter(CounterAttr attr) {
        checkOpen();
        io.jfabric.util.UtilWaitSet set = WaitMembership.setOf("counter", attr.waitObj, attr.waitSet);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment na = fi_cntr_attr.allocate(a);
            fi_cntr_attr.events(na, Fabric_h.FI_CNTR_EVENTS_COMP());
            fi_cntr_attr.wait_obj(na, WaitMembership.nativeWaitObj(attr.waitObj));
            fi_cntr_attr.flags(na, attr.flags);
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_cntr_open(fid, na, out, MemorySegment.NULL);
            if (WaitMembership.refusedFd(attr.waitObj, rc)) {
                fi_cntr_attr.wait_obj(na, io.jfabric.WaitObj.NONE.value());
                rc = FabricInline.fi_cntr_open(fid, na, out, MemorySegment.NULL);
            }
            ReturnCodes.check(rc, "fi_cntr_open", "check the CounterAttr wait object");
            return new LibfabricCounter(this, out.get(Fabric_h.C_POINTER, 0), attr.waitObj, set);
        }
    }

    private static final String REG_ADVICE = "check the access bits and, without FI_MR_PROV_KEY, use a key not "
            + "yet registered in this domain";

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey, long flags) {
        checkOpen();
        // the native provider keeps the address, and a heap segment can move under the NIC
        RegistrationChecks.requireNative(info.providerName(), segment);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_mr_reg(fid, segment, segment.byteSize(), access, offset, requestedKey, flags, out,
                    MemorySegment.NULL);
            ReturnCodes.check(rc, "fi_mr_reg", REG_ADVICE);
            return new LibfabricMemoryRegion(this, out.get(Fabric_h.C_POINTER, 0), new MemorySegment[] {segment},
                    access, offset, null);
        }
    }

    /**
     * {@code fi_mr_regattr}, passed to the native provider as {@code fi_mr_regv} (the same call without the
     * attr struct, since jfabric registers only FI_HMEM_SYSTEM memory and has no auth key). The bridge checks
     * the count against the domain info's mr_iov_limit itself: 1.17's tcp, rxm and rxd accept regions of more
     * buffers than their limit of 1 and then serve only the first (an RMA past it completes at the initiator and
     * is dropped at the target; rxd's never completes), and shm's fast path writes past the first buffer
     * (InfoMapper.mrIovLimit; src/test/c/regv_two_segments.c). The context stays on the Java side.
     */
    @Override
    public MemoryRegion registerMemory(MrAttr attr, long flags) {
        checkOpen();
        long offered = info.domainAttr == null ? 0 : info.domainAttr.mrIovLimit;
        long limit = InfoMapper.mrIovLimit(InfoMapper.nativeName(info.providerName()),
                offered > 0 ? offered : Integer.MAX_VALUE);
        RegistrationChecks.checkAttr(info.providerName(), attr, limit);
        MemorySegment[] iov = java.util.Arrays.copyOf(attr.iov, attr.iovCount);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment vec = iovec.allocateArray(iov.length, a);
            for (int i = 0; i < iov.length; i++) {
                RegistrationChecks.requireNative(info.providerName(), iov[i]);
                MemorySegment e = iovec.asSlice(vec, i);
                iovec.iov_base(e, iov[i]);
                iovec.iov_len(e, iov[i].byteSize());
            }
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_mr_regv(fid, vec, iov.length, attr.access, attr.offset, attr.requestedKey, flags,
                    out, MemorySegment.NULL);
            ReturnCodes.check(rc, "fi_mr_regv", REG_ADVICE + "; keep iov_count within the domain's mr_iov_limit");
            return new LibfabricMemoryRegion(this, out.get(Fabric_h.C_POINTER, 0), iov, attr.access, attr.offset,
                    attr.context);
        }
    }

    /** strdup for the rare control calls that hand libfabric a string it keeps. */
    static MemorySegment cstring(Arena a, String s) {
        return LibC.strdup(a.allocateFrom(s));
    }
}
