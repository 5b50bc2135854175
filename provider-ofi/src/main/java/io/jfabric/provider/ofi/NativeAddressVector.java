package io.jfabric.provider.ofi;

import io.jfabric.AddressFormat;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.provider.ofi.ffi.FabricInline;
import io.jfabric.provider.ofi.ffi.fid_av;
import io.jfabric.provider.ofi.ffi.fi_ops_av;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Mirrors {@code struct fid_av} of a native provider. Addresses are the provider's native bytes (as
 * fi_getname gives them); FI_ADDR_STR addresses travel without their NUL in Java and get it back here.
 */
final class NativeAddressVector extends NativeFid implements AddressVector {
    private final AvAttr attr;
    private final AddressFormat format;

    NativeAddressVector(NativeDomain domain, MemorySegment fid, AvAttr attr) {
        super(domain.fabric, fid);
        hold(domain);
        this.attr = attr;
        AddressFormat f = domain.info().addrFormat;
        this.format = f == null ? AddressFormat.UNSPEC : f;
    }

    @Override
    String kind() {
        return "address vector";
    }

    @Override
    public AvAttr attr() {
        return attr;
    }

    @Override
    public void bind(EventQueue eq) {
        checkOpen();
        NativeErrors.check(FabricInline.fi_bind(fid, fidOf(eq, "event queue"), 0), "fi_av_bind",
                "bind the AV to an EQ of the same fabric before inserting");
        hold((NativeFid) eq);
    }

    private byte[] wire(byte[] a) {
        return NativeNames.toNative(a, format);
    }

    @Override
    public int insert(byte[][] addrs, long[] fiAddrOut, long flags, Object context) {
        checkOpen();
        if (addrs == null || (fiAddrOut != null && fiAddrOut.length < addrs.length)) {
            throw new FabricException(Errno.EINVAL, "fi_av_insert needs an fi_addr array at least as long as the addresses");
        }
        boolean syncErr = (flags & Fabrics.SYNC_ERR) != 0;
        if (syncErr && !(context instanceof int[] errs && errs.length >= addrs.length)) {
            throw new FabricException(Errno.EINVAL, "with FI_SYNC_ERR the context must be an int[] as long as the addresses");
        }
        try (Arena a = Arena.ofConfined()) {
            long total = 0;
            for (byte[] x : addrs) {
                total += wire(x).length;
            }
            MemorySegment packed = a.allocate(Math.max(total, 1));
            long off = 0;
            for (byte[] x : addrs) {
                byte[] w = wire(x);
                MemorySegment.copy(w, 0, packed, ValueLayout.JAVA_BYTE, off, w.length);
                off += w.length;
            }
            MemorySegment out = a.allocate(ValueLayout.JAVA_LONG, Math.max(addrs.length, 1));
            MemorySegment errs = syncErr ? a.allocate(ValueLayout.JAVA_INT, addrs.length) : MemorySegment.NULL;
            int rc = FabricInline.fi_av_insert(fid, packed, addrs.length, out, flags, errs);
            if (rc < 0) {
                throw NativeErrors.failure(rc, "fi_av_insert", "pass addresses in the info's addr_format ("
                        + format.cName() + ")");
            }
            if (fiAddrOut != null) {
                for (int i = 0; i < addrs.length; i++) {
                    fiAddrOut[i] = out.getAtIndex(ValueLayout.JAVA_LONG, i);
                }
            }
            if (syncErr) {
                int[] e = (int[]) context;
                for (int i = 0; i < addrs.length; i++) {
                    e[i] = Math.abs(errs.getAtIndex(ValueLayout.JAVA_INT, i));
                }
            }
            return rc;
        }
    }

    @Override
    public int insertSvc(String node, String service, long[] fiAddrOut, long flags, Object context) {
        checkOpen();
        MemorySegment fn = FabricInline.op(fid_av.ops(fid), fi_ops_av.insertsvc$offset());
        if (fn.address() == 0) {
            throw NativeErrors.failure(-Errno.ENOSYS, "fi_av_insertsvc", "insert fi_getname addresses instead");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ValueLayout.JAVA_LONG);
            int rc = fi_ops_av.insertsvc.invoke(fn, fid, a.allocateFrom(node), a.allocateFrom(service), out, flags,
                    MemorySegment.NULL);
            NativeErrors.check(rc, "fi_av_insertsvc", "check that " + node + ":" + service + " resolves");
            if (fiAddrOut != null && fiAddrOut.length > 0) {
                fiAddrOut[0] = out.get(ValueLayout.JAVA_LONG, 0);
            }
            return rc;
        }
    }

    @Override
    public int remove(long[] fiAddrs, long flags) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment in = a.allocateFrom(ValueLayout.JAVA_LONG, fiAddrs);
            return NativeErrors.check(FabricInline.fi_av_remove(fid, in, fiAddrs.length, flags), "fi_av_remove",
                    "remove only fi_addr values this AV returned");
        }
    }

    @Override
    public byte[] lookup(long fiAddr) {
        checkOpen();
        long size = 256;
        for (int attempt = 0; attempt < 3; attempt++) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment buf = a.allocate(size);
                MemorySegment len = a.allocate(ValueLayout.JAVA_LONG);
                len.set(ValueLayout.JAVA_LONG, 0, size);
                int rc = FabricInline.fi_av_lookup(fid, fiAddr, buf, len);
                long n = len.get(ValueLayout.JAVA_LONG, 0);
                if (rc == 0 && n > size) {
                    size = n;
                    continue;
                }
                if (rc < 0) {
                    throw NativeErrors.failure(rc, "fi_av_lookup of " + fiAddr, "use an fi_addr this AV returned");
                }
                byte[] b = buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
                if (format == AddressFormat.ADDR_STR) {
                    int end = 0;
                    while (end < b.length && b[end] != 0) {
                        end++;
                    }
                    b = java.util.Arrays.copyOf(b, end);
                }
                return b;
            }
        }
        throw new FabricException(Errno.ETOOSMALL, "fi_av_lookup keeps asking for a larger buffer");
    }

    @Override
    public String straddr(byte[] addr) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            byte[] w = wire(addr);
            MemorySegment in = a.allocate(Math.max(w.length, 1));
            MemorySegment.copy(w, 0, in, ValueLayout.JAVA_BYTE, 0, w.length);
            MemorySegment buf = a.allocate(256);
            MemorySegment len = a.allocate(ValueLayout.JAVA_LONG);
            len.set(ValueLayout.JAVA_LONG, 0, 256);
            MemorySegment s = FabricInline.fi_av_straddr(fid, in, buf, len);
            String text = InfoMapper.string(s);
            return text != null ? text : new String(addr, StandardCharsets.ISO_8859_1);
        }
    }
}
