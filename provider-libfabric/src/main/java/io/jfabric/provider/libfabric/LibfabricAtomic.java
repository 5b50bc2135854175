package io.jfabric.provider.libfabric;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.MemoryRegion;
import io.jfabric.provider.libfabric.ffi.AtomicCalls;
import io.jfabric.provider.libfabric.ffi.DataCalls;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.fid_ep;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fi_atomic(3) of one endpoint: fi_atomic, fi_inject_atomic, fi_fetch_atomic, fi_compare_atomic and the three
 * valid queries go straight to the native provider's functions of the same form, which check keys, ranges and
 * combinations and answer with their own counts. The iov and msg forms are not passed through yet and answer
 * -FI_ENOSYS. A buffer's element count is its size over the datatype's.
 */
final class LibfabricAtomic extends EndpointRoom {
    private MemorySegment write = MemorySegment.NULL;
    private MemorySegment inject = MemorySegment.NULL;
    private MemorySegment readwrite = MemorySegment.NULL;
    private MemorySegment compwrite = MemorySegment.NULL;
    private final MemorySegment[] valid = {MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL};
    /** The size_t the valid queries write their count into. */
    private final MemorySegment count = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG);

    LibfabricAtomic(EndpointRoom.Shared shared) {
        super(shared);
    }

    @Override
    void load(MemorySegment fid) {
        MemorySegment ops = fid_ep.atomic(fid);
        write = FabricInline.op(ops, AtomicCalls.WRITE);
        inject = FabricInline.op(ops, AtomicCalls.INJECT);
        readwrite = FabricInline.op(ops, AtomicCalls.READWRITE);
        compwrite = FabricInline.op(ops, AtomicCalls.COMPWRITE);
        valid[0] = FabricInline.op(ops, AtomicCalls.WRITEVALID);
        valid[1] = FabricInline.op(ops, AtomicCalls.READWRITEVALID);
        valid[2] = FabricInline.op(ops, AtomicCalls.COMPWRITEVALID);
    }

    @Override
    void clear() {
        write = inject = readwrite = compwrite = MemorySegment.NULL;
        valid[0] = valid[1] = valid[2] = MemorySegment.NULL;
    }

    /** fi_atomicvalid (kind 0), fi_fetch_atomicvalid (1), fi_compare_atomicvalid (2). */
    synchronized long valid(int kind, AtomicDatatype datatype, AtomicOp op) {
        if (datatype == null || op == null) {
            return EINVAL;
        }
        if (absent(valid[kind])) {
            return missing();
        }
        int rc = (int) DataCalls.call(valid[kind], fidAddr, datatype.value(), op.value(), count.address());
        return rc < 0 ? rc : count.get(ValueLayout.JAVA_LONG, 0);
    }

    /** A context slot for a call of {@code fn}, or a negative errno: the function is missing, or no slot is free. */
    private int slotFor(MemorySegment fn, Object context) {
        if (absent(fn)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        return slot < 0 ? EAGAIN : slot;
    }

    /** Elements in {@code buf}, or -1 when it is not a native buffer of whole elements. */
    private static long elements(MemorySegment buf, AtomicDatatype t) {
        return buf == null || t == null || !buf.isNative() || buf.byteSize() % t.size() != 0 ? -1
                : buf.byteSize() / t.size();
    }

    int atomic(MemorySegment buf, MemoryRegion mr, long dest, long addr, long key, AtomicDatatype t, AtomicOp op,
               Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        long n = elements(buf, t);
        if (d == null || n <= 0 || op == null) {
            return EINVAL;
        }
        int slot = slotFor(write, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(write, fidAddr, buf.address(), n, d.address(), dest, addr, key, t.value(),
                op.value(), slots.address(slot)), slot);
    }

    int inject(MemorySegment buf, long dest, long addr, long key, AtomicDatatype t, AtomicOp op) {
        long n = elements(buf, t);
        if (n <= 0 || op == null) {
            return EINVAL;
        }
        if (absent(inject)) {
            return missing();
        }
        return (int) DataCalls.call(inject, fidAddr, buf.address(), n, dest, addr, key, t.value(), op.value());
    }

    int fetch(MemorySegment buf, MemoryRegion mr, MemorySegment result, MemoryRegion resultMr, long dest, long addr,
              long key, AtomicDatatype t, AtomicOp op, Object context) {
        boolean readOnly = op == AtomicOp.ATOMIC_READ;
        MemorySegment d = LibfabricMemoryRegion.descOf(readOnly ? null : mr);
        MemorySegment rd = LibfabricMemoryRegion.descOf(resultMr);
        long n = elements(result, t);
        if (d == null || rd == null || n <= 0 || op == null || !readOnly && elements(buf, t) != n) {
            return EINVAL;
        }
        int slot = slotFor(readwrite, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(readwrite, fidAddr, readOnly ? 0 : buf.address(), n, d.address(),
                result.address(), rd.address(), dest, addr, key, t.value(), op.value(), slots.address(slot)), slot);
    }

    int compare(MemorySegment buf, MemoryRegion mr, MemorySegment compare, MemoryRegion compareMr,
                MemorySegment result, MemoryRegion resultMr, long dest, long addr, long key, AtomicDatatype t,
                AtomicOp op, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        MemorySegment cd = LibfabricMemoryRegion.descOf(compareMr);
        MemorySegment rd = LibfabricMemoryRegion.descOf(resultMr);
        long n = elements(buf, t);
        if (d == null || cd == null || rd == null || n <= 0 || op == null || elements(compare, t) != n
                || elements(result, t) != n) {
            return EINVAL;
        }
        int slot = slotFor(compwrite, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(compwrite, fidAddr, buf.address(), n, d.address(), compare.address(),
                cd.address(), result.address(), rd.address(), dest, addr, key, t.value(), op.value(),
                slots.address(slot)), slot);
    }
}
