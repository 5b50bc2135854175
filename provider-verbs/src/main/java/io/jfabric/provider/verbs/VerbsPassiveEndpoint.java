package io.jfabric.provider.verbs;

import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.NativeSockaddr;
import io.jfabric.provider.verbs.ffi.generated.rdma_cm_id;
import io.jfabric.provider.verbs.ffi.rdma_cma_h;
import io.jfabric.util.Sockaddr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Mirrors libfabric's verbs passive endpoint: a listening rdma_cm id. Each connection request becomes
 * a CONNREQ on the bound EQ whose info carries the request as {@code handle}; the application opens an
 * endpoint from that info and accepts, or rejects here. Private data: up to 55 bytes each way.
 */
final class VerbsPassiveEndpoint implements PassiveEndpoint, VerbsCmChannel.Listener {
    private static final int BACKLOG = 128;

    private final VerbsFabric fabric;
    private final FabricInfo info;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
    private byte[] name;
    private MemorySegment id;
    private VerbsEq eq;
    private boolean listening;
    private boolean closed;

    VerbsPassiveEndpoint(VerbsFabric fabric, FabricInfo info, VerbsDevice device) {
        this.fabric = fabric;
        this.info = info.copy();
        fabric.acquire();
        this.name = info.srcAddr != null ? info.srcAddr.clone() : Sockaddr.of(device.addresses().getFirst().ip(), 0);
    }

    @Override
    public synchronized void bind(EventQueue queue) {
        if (!(queue instanceof VerbsEq veq)) {
            throw new FabricException(Errno.EINVAL, "bind an EQ opened on the verbs fabric");
        }
        if (eq != null) {
            throw new FabricException(Errno.EINVAL, "passive endpoint is already bound to an EQ");
        }
        MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
        Native.checkCm(rdma_cma_h.rdma_create_id(errno, veq.channel(), out, MemorySegment.NULL, rdma_cma_h.RDMA_PS_TCP),
                errno, "rdma_create_id");
        id = rdma_cm_id.reinterpret(out.get(ValueLayout.ADDRESS, 0));
        veq.register(id, this);
        eq = veq;
    }

    @Override
    public synchronized void listen() {
        if (eq == null) {
            throw new FabricException(Errno.ENOEQ, "bind an EQ before listen(): connection requests arrive there");
        }
        if (listening) {
            return;
        }
        Native.checkCm(rdma_cma_h.rdma_bind_addr(errno, id, NativeSockaddr.toNative(name, arena)), errno,
                "rdma_bind_addr to " + Sockaddr.straddr(name) + " (is the port free, and the address on an RDMA device?)");
        Native.checkCm(rdma_cma_h.rdma_listen(errno, id, BACKLOG), errno, "rdma_listen");
        byte[] bound = NativeSockaddr.fromNative(rdma_cm_id.route_addr_src_addr(id));
        if (bound != null) {
            name = bound;
        }
        listening = true;
    }

    @Override
    public void onCmEvent(int event, int status, MemorySegment newId, byte[] data) {
        if (event != rdma_cma_h.RDMA_CM_EVENT_CONNECT_REQUEST) {
            return;
        }
        MemorySegment nid = rdma_cm_id.reinterpret(newId);
        FabricInfo ci = info.copy();
        ci.handle = new VerbsCmRequest(nid, eq, this);
        ci.srcAddr = NativeSockaddr.fromNative(rdma_cm_id.route_addr_src_addr(nid));
        ci.destAddr = NativeSockaddr.fromNative(rdma_cm_id.route_addr_dst_addr(nid));
        VerbsDevice dev = deviceOf(rdma_cm_id.verbs(nid));
        if (dev != null) {
            ci.providerData = dev;
            ci.domainAttr.name = dev.name();
            ci.nicName = dev.name();
        }
        eq.postConnReq(this, null, ci, data);
    }

    private static VerbsDevice deviceOf(MemorySegment context) {
        for (VerbsDevice d : DeviceScan.result().devices()) {
            if (d.context().address() == context.address()) {
                return d;
            }
        }
        return null;
    }

    @Override
    public void reject(Object handle, byte[] data) {
        if (!(handle instanceof VerbsCmRequest cr) || cr.pep() != this) {
            throw new FabricException(Errno.EINVAL, "reject() takes the handle of a CONNREQ this passive endpoint raised");
        }
        if (!cr.take()) {
            // an endpoint opened from this request owns its id (closing that endpoint refuses the peer), or it
            // was rejected already: librdmacm must not see the id again
            throw new FabricException(Errno.EINVAL, "this CONNREQ was already rejected or taken by an endpoint; "
                    + "close that endpoint instead, which refuses the peer");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pd = a.allocate(VerbsInfos.CM_DATA_SIZE + 1);
            int n = VerbsCm.encodePrivateData(data, pd);
            MemorySegment err = NativeLibrary.allocateCaptureState(a);
            int rc = rdma_cma_h.rdma_reject(err, cr.id(), pd, (byte) n);
            rdma_cma_h.rdma_destroy_id(err, cr.id());
            if (rc != 0) {
                Native.checkCm(rc, err, "rdma_reject");
            }
        }
    }

    @Override
    public byte[] getName() {
        return name.clone();
    }

    @Override
    public synchronized void setName(byte[] addr) {
        Native.checkSockaddr(addr, "address");
        if (listening) {
            throw new FabricException(Errno.EOPBADSTATE, "setName() must come before listen()");
        }
        name = addr.clone();
    }

    @Override
    public long cmDataSize() {
        return VerbsInfos.CM_DATA_SIZE;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (id != null) {
            eq.unregister(id);
            rdma_cma_h.rdma_destroy_id(errno, id);
        }
        closed = true;
        fabric.release();
        arena.close();
    }
}
