package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.PassiveEndpoint;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Mirrors {@code struct fid_pep} of a native provider (FI_EP_MSG listeners). */
final class LibfabricPassiveEndpoint extends FidObject implements PassiveEndpoint {

    private final io.jfabric.AddressFormat format;

    LibfabricPassiveEndpoint(LibfabricFabric fabric, MemorySegment fid, io.jfabric.AddressFormat format) {
        super(fabric, fid);
        this.format = format;
        hold(fabric);
    }

    @Override
    String kind() {
        return "passive endpoint";
    }

    @Override
    public void bind(EventQueue eq) {
        checkOpen();
        ReturnCodes.check(FabricInline.fi_bind(fid, fidOf(eq, "event queue"), 0), "fi_pep_bind",
                "bind an EQ of the same fabric before listening");
        hold((FidObject) eq);
    }

    @Override
    public void listen() {
        checkOpen();
        ReturnCodes.check(FabricInline.fi_listen(fid), "fi_listen",
                "bind an EQ first; the address may be in use (set another source address)");
    }

    @Override
    public void reject(Object handle, byte[] data) {
        checkOpen();
        if (!(handle instanceof InfoMapper.ConnectionRequest r)) {
            throw new FabricException(Errno.EINVAL, "reject needs the handle of a CONNREQ info from this provider");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment d = data == null || data.length == 0 ? MemorySegment.NULL
                    : a.allocateFrom(ValueLayout.JAVA_BYTE, data);
            ReturnCodes.check(FabricInline.fi_reject(fid, MemorySegment.ofAddress(r.fid()), d,
                    data == null ? 0 : data.length), "fi_reject", "reject data must fit FI_OPT_CM_DATA_SIZE");
        }
    }

    @Override
    public byte[] getName() {
        checkOpen();
        return AddressNames.get(fid, false, "fi_getname", format);
    }

    @Override
    public void setName(byte[] addr) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            byte[] n = AddressNames.toNative(addr, format);
            ReturnCodes.check(FabricInline.fi_setname(fid, a.allocateFrom(ValueLayout.JAVA_BYTE, n), n.length),
                    "fi_setname", "pass an address in the info's addr_format");
        }
    }

    @Override
    public long cmDataSize() {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_LONG);
            MemorySegment len = a.allocate(ValueLayout.JAVA_LONG);
            len.set(ValueLayout.JAVA_LONG, 0, 8);
            int rc = FabricInline.fi_getopt(fid, Fabric_h.FI_OPT_ENDPOINT(), Fabric_h.FI_OPT_CM_DATA_SIZE(), v, len);
            return rc < 0 ? 0 : v.get(ValueLayout.JAVA_LONG, 0);
        }
    }
}
