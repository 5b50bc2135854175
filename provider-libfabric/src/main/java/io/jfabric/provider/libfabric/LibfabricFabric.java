package io.jfabric.provider.libfabric;

import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.generated.fi_eq_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_info;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Mirrors {@code struct fid_fabric} of a native provider. It also keeps the map from native fid
 * addresses to the Java objects of this fabric, which turns the {@code fid} of an EQ event back into
 * the Endpoint or PassiveEndpoint it is about.
 */
final class LibfabricFabric extends FidObject implements Fabric {
    private final FabricInfo info;
    private final String nativeName;
    private final ConcurrentHashMap<Long, Object> objects;
    final int contextSlots;

    private LibfabricFabric(MemorySegment fid, FabricInfo info, String nativeName, int contextSlots,
                         ConcurrentHashMap<Long, Object> objects) {
        super(null, fid);
        this.info = info.copy();
        this.nativeName = nativeName;
        this.objects = objects;
        this.contextSlots = contextSlots;
    }

    static LibfabricFabric open(FabricInfo info, int contextSlots) {
        String nativeName = InfoMapper.nativeName(info.providerName());
        if ("shm".equals(nativeName)) {
            ShmLeftovers.sweepOnce();
        }
        MemorySegment n = InfoMapper.toNative(info, nativeName);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = Fabric_h.fi_fabric(fi_info.fabric_attr(n), out, MemorySegment.NULL);
            ReturnCodes.check(rc, "fi_fabric for " + info.providerName(),
                    "use an info returned by Fabrics.getInfo for a libfabric: provider");
            LibfabricFabric f = new LibfabricFabric(out.get(Fabric_h.C_POINTER, 0), info, nativeName, contextSlots,
                    new ConcurrentHashMap<>());
            f.keepOpenedFrom(n);
            n = MemorySegment.NULL;
            return f;
        } finally {
            freeUnlessKept(n);
        }
    }

    void register(long address, Object o) {
        objects.put(address, o);
    }

    void unregister(long address) {
        objects.remove(address);
    }

    /** The bridged object behind a native fid address, or null. */
    Object lookup(long address) {
        return address == fid.address() ? this : objects.get(address);
    }

    String nativeName(FabricInfo i) {
        String n = InfoMapper.nativeName(i.providerName());
        return n == null ? nativeName : n;
    }

    @Override
    String kind() {
        return "fabric";
    }

    @Override
    public FabricInfo info() {
        return info.copy();
    }

    @Override
    public Domain openDomain(FabricInfo info) {
        checkOpen();
        return LibfabricDomain.open(this, info);
    }

    @Override
    public PassiveEndpoint openPassiveEndpoint(FabricInfo info) {
        checkOpen();
        MemorySegment n = InfoMapper.toNative(info, nativeName(info));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_passive_ep(fid, n, out, MemorySegment.NULL);
            ReturnCodes.check(rc, "fi_passive_ep", "passive endpoints exist for FI_EP_MSG infos only");
            LibfabricPassiveEndpoint pep = new LibfabricPassiveEndpoint(this, out.get(Fabric_h.C_POINTER, 0), info.addrFormat);
            pep.keepOpenedFrom(n);
            n = MemorySegment.NULL;
            return pep;
        } finally {
            freeUnlessKept(n);
        }
    }

    @Override
    public EventQueue openEq(EqAttr attr) {
        checkOpen();
        io.jfabric.util.UtilWaitSet set = WaitMembership.setOf("EQ", attr.waitObj, attr.waitSet);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment na = fi_eq_attr.allocate(a);
            fi_eq_attr.size(na, attr.size);
            fi_eq_attr.flags(na, attr.flags);
            fi_eq_attr.wait_obj(na, WaitMembership.nativeWaitObj(attr.waitObj));
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = FabricInline.fi_eq_open(fid, na, out, MemorySegment.NULL);
            if (WaitMembership.refusedFd(attr.waitObj, rc)) {
                fi_eq_attr.wait_obj(na, io.jfabric.WaitObj.NONE.value());
                rc = FabricInline.fi_eq_open(fid, na, out, MemorySegment.NULL);
            }
            ReturnCodes.check(rc, "fi_eq_open", "check the EqAttr (size, wait object)");
            return new LibfabricEq(this, out.get(Fabric_h.C_POINTER, 0), attr, set);
        }
    }

    /**
     * fi_trywait on native objects goes to the native provider (for programs that then block on {@code waitFd()}
     * descriptors); objects of Java providers, jfabric wait sets and bridged queues that joined one (FI_WAIT_SET)
     * go to util's trywait. One call may not mix the two, as fi_trywait(3) asks every object of one call to share
     * one kind of wait object.
     */
    @Override
    public int trywait(io.jfabric.FabricObject... objects) {
        if (objects == null || objects.length == 0) {
            return -io.jfabric.Errno.EINVAL;
        }
        int natives = 0;
        for (io.jfabric.FabricObject o : objects) {
            natives += o instanceof FidObject && !(o instanceof io.jfabric.util.Waitable w
                    && w.waitObj() == io.jfabric.WaitObj.SET) ? 1 : 0;
        }
        if (natives == 0) {
            return Fabric.super.trywait(objects);
        }
        if (natives != objects.length) {
            return -io.jfabric.Errno.EINVAL;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fids = a.allocate(Fabric_h.C_POINTER, objects.length);
            for (int i = 0; i < objects.length; i++) {
                fids.setAtIndex(Fabric_h.C_POINTER, i, ((FidObject) objects[i]).fid);
            }
            return FabricInline.fi_trywait(fid, fids, objects.length);
        }
    }
}
