package io.jfabric.provider.libfabric;

import io.jfabric.AddressFormat;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.fid_av;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_av;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Mirrors {@code struct fid_av} of a native provider. Addresses are the provider's native bytes (as
 * fi_getname gives them); FI_ADDR_STR addresses travel without their NUL in Java and get it back here.
 * The libfabric provider remembers the fi_addr values it handed out, so that fi_av_lookup and fi_av_remove of any other
 * value fail as fi_av(3) says, before libfabric sees them: 1.17's rxm, shm and rxd answer them with success
 * (provider-libfabric/src/test/c/av_lookup_unknown.c). It remembers the address each was inserted with too, which
 * fi_av_lookup returns where the native provider answers FI_ENODATA for an fi_addr it handed out (rxd's fi_addr 0).
 */
final class LibfabricAv extends FidObject implements AddressVector {
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    /** A sockaddr's leading sa_family, in host order. */
    private static final java.lang.invoke.VarHandle FAMILY = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            short[].class, java.nio.ByteOrder.nativeOrder());

    private final AvAttr attr;
    private final AddressFormat format;
    private final int slotSize;
    /**
     * 1.17's shm inserts synchronously on an FI_EVENT AV and writes no FI_AV_COMPLETE (src/test/c/av_async_insert.c),
     * so the bridge writes that event to the bound EQ itself, as fi_av(3) promises one per insert.
     */
    private final boolean writesAvComplete;
    private volatile LibfabricEq eq;
    /**
     * The fi_addr values inserts returned and no remove has taken back, each with the address it was inserted
     * with (empty where fi_av_insertsvc gave it).
     */
    private final Map<Long, byte[]> handedOut = new ConcurrentHashMap<>();

    LibfabricAv(LibfabricDomain domain, MemorySegment fid, AvAttr attr) {
        super(domain.fabric, fid);
        hold(domain);
        this.attr = attr;
        AddressFormat f = domain.info().addrFormat;
        this.format = f == null ? AddressFormat.UNSPEC : f;
        this.slotSize = slotSize(format, domain.info().srcAddr);
        this.writesAvComplete = !"shm".equals(InfoMapper.nativeName(domain.info().providerName()));
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
        ReturnCodes.check(FabricInline.fi_bind(fid, fidOf(eq, "event queue"), 0), "fi_av_bind",
                "bind the AV to an EQ of the same fabric before inserting");
        hold((FidObject) eq);
        this.eq = (LibfabricEq) eq;
    }

    private byte[] wire(byte[] a) {
        return AddressNames.toNative(a, format);
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
        // native addresses of a binary format sit in fixed-size slots: one of another length cannot be passed on
        // (it would shift every address after it), so it is refused here, as a native bad address would be; so is a
        // sockaddr of another family, which 1.17's rxm, inserted alone, answers by breaking its whole AV (every
        // lookup then empty, every insert FI_EINVAL: src/test/c/av_batch_bad.c ALONE=1)
        int slot = slotSize;
        int[] passed = new int[addrs.length];
        int count = 0;
        long total = 0;
        for (int i = 0; i < addrs.length; i++) {
            byte[] w = wire(addrs[i]);
            if (slot > 0 && (w == null || w.length != slot || !familyFits(w))) {
                continue;
            }
            passed[count++] = i;
            total += w.length;
        }
        if (fiAddrOut != null) {
            java.util.Arrays.fill(fiAddrOut, 0, addrs.length, Fabrics.ADDR_NOTAVAIL);
        }
        if (syncErr) {
            java.util.Arrays.fill((int[]) context, 0, addrs.length, Errno.EINVAL);
        }
        if (count == 0 && addrs.length > 0) {
            return 0;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment packed = a.allocate(Math.max(total, 1));
            long off = 0;
            for (int k = 0; k < count; k++) {
                byte[] w = wire(addrs[passed[k]]);
                MemorySegment.copy(w, 0, packed, ValueLayout.JAVA_BYTE, off, w.length);
                off += w.length;
            }
            MemorySegment out = a.allocate(ValueLayout.JAVA_LONG, Math.max(count, 1));
            MemorySegment errs = syncErr ? a.allocate(ValueLayout.JAVA_INT, Math.max(count, 1)) : MemorySegment.NULL;
            // FI_SYNC_ERR: the context is the error array; an insert reporting on a bound EQ (FI_EVENT): the
            // FI_AV_COMPLETE event carries the context back, so it travels as one of the EQ's context ids
            LibfabricEq bound = eq;
            boolean reportsOnEq = !syncErr && bound != null && (attr.flags & AvAttr.EVENT) != 0;
            long ctxId = reportsOnEq ? bound.contextId(context) : 0;
            MemorySegment nativeCtx = syncErr ? errs : MemorySegment.ofAddress(ctxId);
            int rc = FabricInline.fi_av_insert(fid, packed, count, out, flags, nativeCtx);
            if ((rc < 0 || !writesAvComplete) && ctxId != 0) {
                bound.forgetContext(ctxId);
            }
            if (rc < 0) {
                throw ReturnCodes.failure(rc, "fi_av_insert", "pass addresses in the info's addr_format ("
                        + format.cName() + ")");
            }
            for (int k = 0; k < count; k++) {
                long fiAddr = out.getAtIndex(ValueLayout.JAVA_LONG, k);
                if (fiAddr != Fabrics.ADDR_NOTAVAIL) {
                    handedOut.put(fiAddr, addrs[passed[k]].clone());
                }
                if (fiAddrOut != null) {
                    fiAddrOut[passed[k]] = fiAddr;
                }
                if (syncErr) {
                    ((int[]) context)[passed[k]] = Math.abs(errs.getAtIndex(ValueLayout.JAVA_INT, k));
                }
            }
            if (reportsOnEq && !writesAvComplete) {
                bound.write(new io.jfabric.EqEntry().set(io.jfabric.EqEvent.AV_COMPLETE, this, context, rc, null,
                        null), 0);
            }
            return rc;
        }
    }

    /** Whether a sockaddr's sa_family (host order) is the one this AV's format names; other formats pass. */
    private boolean familyFits(byte[] w) {
        int want = switch (format) {
            case SOCKADDR_IN -> AF_INET;
            case SOCKADDR_IN6 -> AF_INET6;
            default -> -1;
        };
        return want < 0 || (w.length >= 2 && (short) FAMILY.get(w, 0) == want);
    }


    /** The native length of one address of this AV's binary format, 0 when unknown or variable (FI_ADDR_STR). */
    private static int slotSize(AddressFormat format, byte[] srcAddr) {
        return switch (format) {
            case SOCKADDR_IN -> 16;
            case SOCKADDR_IN6 -> 28;
            case ADDR_STR, UNSPEC, SOCKADDR -> 0;
            default -> srcAddr == null ? 0 : srcAddr.length;
        };
    }

    @Override
    public int insertSvc(String node, String service, long[] fiAddrOut, long flags, Object context) {
        checkOpen();
        MemorySegment fn = FabricInline.op(fid_av.ops(fid), fi_ops_av.insertsvc$offset());
        if (fn.address() == 0) {
            throw ReturnCodes.failure(-Errno.ENOSYS, "fi_av_insertsvc", "insert fi_getname addresses instead");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ValueLayout.JAVA_LONG);
            int rc = fi_ops_av.insertsvc.invoke(fn, fid, a.allocateFrom(node), a.allocateFrom(service), out, flags,
                    MemorySegment.NULL);
            ReturnCodes.check(rc, "fi_av_insertsvc", "check that " + node + ":" + service + " resolves");
            long fiAddr = out.get(ValueLayout.JAVA_LONG, 0);
            if (rc > 0 && fiAddr != Fabrics.ADDR_NOTAVAIL) {
                handedOut.put(fiAddr, new byte[0]);
            }
            if (fiAddrOut != null && fiAddrOut.length > 0) {
                fiAddrOut[0] = fiAddr;
            }
            return rc;
        }
    }

    @Override
    public int remove(long[] fiAddrs, long flags) {
        checkOpen();
        // one unknown value refuses the whole batch, so that a refused remove removes nothing
        for (long fiAddr : fiAddrs) {
            requireHandedOut(fiAddr, "fi_av_remove");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment in = a.allocateFrom(ValueLayout.JAVA_LONG, fiAddrs);
            int rc = ReturnCodes.check(FabricInline.fi_av_remove(fid, in, fiAddrs.length, flags), "fi_av_remove",
                    "remove only fi_addr values this AV returned");
            for (long fiAddr : fiAddrs) {
                handedOut.remove(fiAddr);
            }
            return rc;
        }
    }

    private void requireHandedOut(long fiAddr, String call) {
        if (!handedOut.containsKey(fiAddr)) {
            throw new FabricException(Errno.EINVAL, call + " of fi_addr " + fiAddr + ": this AV never returned it, or it"
                    + " was removed; use an fi_addr that fi_av_insert returned");
        }
    }

    @Override
    public byte[] lookup(long fiAddr) {
        checkOpen();
        requireHandedOut(fiAddr, "fi_av_lookup");
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
                byte[] inserted = handedOut.get(fiAddr);
                if (rc == -Errno.ENODATA && inserted != null && inserted.length > 0) {
                    // rxd 1.17 keeps fi_addr 0 in an index map where 0 reads as absent (rxd_av.c)
                    return inserted.clone();
                }
                if (rc < 0) {
                    throw ReturnCodes.failure(rc, "fi_av_lookup of " + fiAddr, "use an fi_addr this AV returned");
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
