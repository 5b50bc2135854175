package io.jfabric.provider.libfabric;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicMsg;
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
 * combinations and answer with their own counts; so do the iov and msg forms, whose native fi_ioc arrays and
 * fi_msg_atomic are filled in the endpoint's {@link AtomicScratch}. A buffer's element count is its size over the
 * datatype's.
 */
final class LibfabricAtomic extends EndpointRoom {
    private MemorySegment write = MemorySegment.NULL;
    private MemorySegment inject = MemorySegment.NULL;
    private MemorySegment readwrite = MemorySegment.NULL;
    private MemorySegment compwrite = MemorySegment.NULL;
    private MemorySegment writev = MemorySegment.NULL;
    private MemorySegment writemsg = MemorySegment.NULL;
    private MemorySegment readwritev = MemorySegment.NULL;
    private MemorySegment readwritemsg = MemorySegment.NULL;
    private MemorySegment compwritev = MemorySegment.NULL;
    private MemorySegment compwritemsg = MemorySegment.NULL;
    private final AtomicScratch scratch = new AtomicScratch(Arena.ofAuto());
    private final MemorySegment[] valid = {MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL};
    /** The size_t the valid queries write their count into. */
    private final MemorySegment count = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG);

    /** FI_MR_VIRT_ADDR: a target address is the target's own virtual address, so its alignment is known here. */
    private final boolean virtAddr;
    private static final int OPS = AtomicOp.values().length;
    /** fi_*atomicvalid's answers by kind and (datatype, op); 0 until asked. */
    private final long[][] validCounts = new long[3][AtomicDatatype.values().length * OPS];

    LibfabricAtomic(EndpointRoom.Shared shared, boolean virtAddr) {
        super(shared);
        this.virtAddr = virtAddr;
    }

    /**
     * A target address not aligned to its element where it is the target's own (FI_MR_VIRT_ADDR): refused with
     * FI_EINVAL, as jfabric's providers refuse it (AtomicUpdate.aligned). 1.17's shm does such an access unaligned,
     * which is not atomic across a cache line, and rxm and rxd check only the region (docs/differences.md).
     */
    private boolean misaligned(AtomicDatatype t, long addr) {
        return virtAddr && !io.jfabric.util.AtomicUpdate.aligned(t, addr);
    }

    @Override
    void load(MemorySegment fid) {
        MemorySegment ops = fid_ep.atomic(fid);
        write = FabricInline.op(ops, AtomicCalls.WRITE);
        inject = FabricInline.op(ops, AtomicCalls.INJECT);
        readwrite = FabricInline.op(ops, AtomicCalls.READWRITE);
        compwrite = FabricInline.op(ops, AtomicCalls.COMPWRITE);
        writev = FabricInline.op(ops, AtomicCalls.WRITEV);
        writemsg = FabricInline.op(ops, AtomicCalls.WRITEMSG);
        readwritev = FabricInline.op(ops, AtomicCalls.READWRITEV);
        readwritemsg = FabricInline.op(ops, AtomicCalls.READWRITEMSG);
        compwritev = FabricInline.op(ops, AtomicCalls.COMPWRITEV);
        compwritemsg = FabricInline.op(ops, AtomicCalls.COMPWRITEMSG);
        valid[0] = FabricInline.op(ops, AtomicCalls.WRITEVALID);
        valid[1] = FabricInline.op(ops, AtomicCalls.READWRITEVALID);
        valid[2] = FabricInline.op(ops, AtomicCalls.COMPWRITEVALID);
    }

    @Override
    void clear() {
        write = inject = readwrite = compwrite = MemorySegment.NULL;
        writev = writemsg = readwritev = readwritemsg = compwritev = compwritemsg = MemorySegment.NULL;
        valid[0] = valid[1] = valid[2] = MemorySegment.NULL;
    }

    /**
     * Whether {@code n} elements are more than fi_*atomicvalid (kind as in {@link #valid}) answers for the datatype
     * and op; the post is then refused with FI_EINVAL, as fi_atomic(3) limits count to that answer. 1.17's shm and
     * rxm answer such a post with -FI_EAGAIN, which a caller retries for ever, and rxd accepts it. The answers are
     * asked once per combination; an unsupported one is left for the native call to refuse.
     */
    private boolean beyondValid(int kind, AtomicDatatype t, AtomicOp op, long n) {
        int i = t.ordinal() * OPS + op.ordinal();
        long max = validCounts[kind][i];
        if (max == 0) {
            long v = valid(kind, t, op);
            max = v > 0 ? v : Long.MAX_VALUE;
            validCounts[kind][i] = max;
        }
        return n > max;
    }

    /** As {@link #misaligned(AtomicDatatype, long)} for any of a message's target ranges. */
    private boolean misaligned(AtomicMsg msg) {
        for (int i = 0; virtAddr && i < msg.rmaIocCount; i++) {
            if (misaligned(msg.datatype, msg.rmaIoc[i].addr)) {
                return true;
            }
        }
        return false;
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

    /** A context slot for a plain call of {@code fn}, or a negative errno: the function is missing, or no slot is free. */
    private int slotFor(MemorySegment fn, Object context) {
        return slotFor(fn, context, 0, true);
    }

    /** As {@link #slotFor(MemorySegment, Object)}, for a msg form posted with {@code flags} unless {@code plain}. */
    private int slotFor(MemorySegment fn, Object context, long flags, boolean plain) {
        if (absent(fn)) {
            return missing();
        }
        int slot = plain ? txSlot(context) : txSlot(context, flags);
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
        if (d == null || n <= 0 || op == null || beyondValid(0, t, op, n) || misaligned(t, addr)) {
            return EINVAL;
        }
        int slot = slotFor(write, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(write, fidAddr, buf.address(), n, d.address(), dest, addr, key, t.value(),
                op.value(), contextAddress(slot)), slot);
    }

    int inject(MemorySegment buf, long dest, long addr, long key, AtomicDatatype t, AtomicOp op) {
        long n = elements(buf, t);
        if (n <= 0 || op == null || beyondValid(0, t, op, n) || misaligned(t, addr)) {
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
        if (d == null || rd == null || n <= 0 || op == null || !readOnly && elements(buf, t) != n
                || beyondValid(1, t, op, n) || misaligned(t, addr)) {
            return EINVAL;
        }
        int slot = slotFor(readwrite, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(readwrite, fidAddr, readOnly ? 0 : buf.address(), n, d.address(),
                result.address(), rd.address(), dest, addr, key, t.value(), op.value(), contextAddress(slot)), slot);
    }

    int compare(MemorySegment buf, MemoryRegion mr, MemorySegment compare, MemoryRegion compareMr,
                MemorySegment result, MemoryRegion resultMr, long dest, long addr, long key, AtomicDatatype t,
                AtomicOp op, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        MemorySegment cd = LibfabricMemoryRegion.descOf(compareMr);
        MemorySegment rd = LibfabricMemoryRegion.descOf(resultMr);
        long n = elements(buf, t);
        if (d == null || cd == null || rd == null || n <= 0 || op == null || elements(compare, t) != n
                || elements(result, t) != n || beyondValid(2, t, op, n) || misaligned(t, addr)) {
            return EINVAL;
        }
        int slot = slotFor(compwrite, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(compwrite, fidAddr, buf.address(), n, d.address(), compare.address(),
                cd.address(), result.address(), rd.address(), dest, addr, key, t.value(), op.value(),
                contextAddress(slot)), slot);
    }

    // ---- iov and msg forms: filled into the scratch memory, under its monitor on an FI_THREAD_SAFE domain ----

    int atomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, long dest, long addr, long key,
                AtomicDatatype t, AtomicOp op, Object context) {
        if (threadSafe) {
            synchronized (scratch) {
                return atomicvLocked(iov, desc, count, dest, addr, key, t, op, context);
            }
        }
        return atomicvLocked(iov, desc, count, dest, addr, key, t, op, context);
    }

    private int atomicvLocked(MemorySegment[] iov, MemoryRegion[] desc, int count, long dest, long addr, long key,
                              AtomicDatatype t, AtomicOp op, Object context) {
        AtomicScratch s = scratch;
        if (op == null || !s.fill(AtomicScratch.OPERANDS, iov, desc, count, t)
                || beyondValid(0, t, op, s.elements[AtomicScratch.OPERANDS]) || misaligned(t, addr)) {
            return EINVAL;
        }
        int slot = slotFor(writev, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(writev, fidAddr, s.iocAddr[0], s.descAddr[0], count, dest, addr, key,
                t.value(), op.value(), contextAddress(slot)), slot);
    }

    int atomicmsg(AtomicMsg msg, long flags) {
        if (threadSafe) {
            synchronized (scratch) {
                return msgLocked(0, writemsg, msg, null, null, 0, null, null, 0, flags);
            }
        }
        return msgLocked(0, writemsg, msg, null, null, 0, null, null, 0, flags);
    }

    int fetchv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] resultv,
               MemoryRegion[] resultDesc, int resultCount, long dest, long addr, long key, AtomicDatatype t,
               AtomicOp op, Object context) {
        if (threadSafe) {
            synchronized (scratch) {
                return fetchvLocked(iov, desc, count, resultv, resultDesc, resultCount, dest, addr, key, t, op,
                        context);
            }
        }
        return fetchvLocked(iov, desc, count, resultv, resultDesc, resultCount, dest, addr, key, t, op, context);
    }

    private int fetchvLocked(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] resultv,
                             MemoryRegion[] resultDesc, int resultCount, long dest, long addr, long key,
                             AtomicDatatype t, AtomicOp op, Object context) {
        AtomicScratch s = scratch;
        if (op == null || !s.fill(AtomicScratch.OPERANDS, iov, desc, count, t)
                || !s.fill(AtomicScratch.RESULTS, resultv, resultDesc, resultCount, t)
                || beyondValid(1, t, op, s.elements[AtomicScratch.RESULTS]) || misaligned(t, addr)) {
            return EINVAL;
        }
        int slot = slotFor(readwritev, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(readwritev, fidAddr, s.iocAddr[0], s.descAddr[0], count, s.iocAddr[2],
                s.descAddr[2], resultCount, dest, addr, key, t.value(), op.value(), contextAddress(slot)), slot);
    }

    int fetchmsg(AtomicMsg msg, MemorySegment[] resultv, MemoryRegion[] resultDesc, int resultCount, long flags) {
        if (threadSafe) {
            synchronized (scratch) {
                return msgLocked(1, readwritemsg, msg, null, null, 0, resultv, resultDesc, resultCount, flags);
            }
        }
        return msgLocked(1, readwritemsg, msg, null, null, 0, resultv, resultDesc, resultCount, flags);
    }

    int comparev(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] comparev,
                 MemoryRegion[] compareDesc, int compareCount, MemorySegment[] resultv, MemoryRegion[] resultDesc,
                 int resultCount, long dest, long addr, long key, AtomicDatatype t, AtomicOp op, Object context) {
        if (threadSafe) {
            synchronized (scratch) {
                return comparevLocked(iov, desc, count, comparev, compareDesc, compareCount, resultv, resultDesc,
                        resultCount, dest, addr, key, t, op, context);
            }
        }
        return comparevLocked(iov, desc, count, comparev, compareDesc, compareCount, resultv, resultDesc,
                resultCount, dest, addr, key, t, op, context);
    }

    private int comparevLocked(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] comparev,
                               MemoryRegion[] compareDesc, int compareCount, MemorySegment[] resultv,
                               MemoryRegion[] resultDesc, int resultCount, long dest, long addr, long key,
                               AtomicDatatype t, AtomicOp op, Object context) {
        AtomicScratch s = scratch;
        if (op == null || !s.fill(AtomicScratch.OPERANDS, iov, desc, count, t)
                || !s.fill(AtomicScratch.COMPARE, comparev, compareDesc, compareCount, t)
                || !s.fill(AtomicScratch.RESULTS, resultv, resultDesc, resultCount, t)
                || beyondValid(2, t, op, s.elements[AtomicScratch.RESULTS]) || misaligned(t, addr)) {
            return EINVAL;
        }
        int slot = slotFor(compwritev, context);
        if (slot < 0) {
            return slot;
        }
        return post(AtomicCalls.call(compwritev, fidAddr, s.iocAddr[0], s.descAddr[0], count, s.iocAddr[1],
                s.descAddr[1], compareCount, s.iocAddr[2], s.descAddr[2], resultCount, dest, addr, key, t.value(),
                op.value(), contextAddress(slot)), slot);
    }

    int comparemsg(AtomicMsg msg, MemorySegment[] comparev, MemoryRegion[] compareDesc, int compareCount,
                   MemorySegment[] resultv, MemoryRegion[] resultDesc, int resultCount, long flags) {
        if (threadSafe) {
            synchronized (scratch) {
                return msgLocked(2, compwritemsg, msg, comparev, compareDesc, compareCount, resultv, resultDesc,
                        resultCount, flags);
            }
        }
        return msgLocked(2, compwritemsg, msg, comparev, compareDesc, compareCount, resultv, resultDesc, resultCount,
                flags);
    }

    /**
     * fi_atomicmsg (kind 0: no compare or result buffers), fi_fetch_atomicmsg (1: result buffers only) or
     * fi_compare_atomicmsg (2) through {@code fn}.
     */
    private int msgLocked(int kind, MemorySegment fn, AtomicMsg msg, MemorySegment[] comparev,
                          MemoryRegion[] compareDesc, int compareCount, MemorySegment[] resultv,
                          MemoryRegion[] resultDesc, int resultCount,
                          long flags) {
        AtomicScratch s = scratch;
        if (msg == null || !s.fill(msg) || kind == 2
                && !s.fill(AtomicScratch.COMPARE, comparev, compareDesc, compareCount, msg.datatype)
                || kind != 0 && !s.fill(AtomicScratch.RESULTS, resultv, resultDesc, resultCount, msg.datatype)
                || beyondValid(kind, msg.datatype, msg.op, s.elements[kind == 0 ? AtomicScratch.OPERANDS
                        : AtomicScratch.RESULTS]) || misaligned(msg)) {
            return EINVAL;
        }
        int slot = slotFor(fn, msg.context, flags, false);
        if (slot < 0) {
            return slot;
        }
        s.context(contextAddress(slot));
        long rc;
        if (kind == 0) {
            rc = DataCalls.call(fn, fidAddr, s.msgAddr, flags);
        } else if (kind == 1) {
            rc = DataCalls.call(fn, fidAddr, s.msgAddr, s.iocAddr[2], s.descAddr[2], resultCount, flags);
        } else {
            rc = DataCalls.call(fn, fidAddr, s.msgAddr, s.iocAddr[1], s.descAddr[1], compareCount, s.iocAddr[2],
                    s.descAddr[2], resultCount, flags);
        }
        return post(rc, slot);
    }
}
