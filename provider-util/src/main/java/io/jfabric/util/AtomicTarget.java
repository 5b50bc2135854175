package io.jfabric.util;

import io.jfabric.Access;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;

import java.lang.foreign.MemorySegment;

/**
 * The target side of an atomic operation that a peer asked for: checks the datatype and operation, the key,
 * the access the operation needs (FI_REMOTE_WRITE to change the target, FI_REMOTE_READ to return it), the
 * range and the alignment, and only then applies it with {@link AtomicUpdate}, so that a refused operation
 * changes no target byte. One per endpoint, used by the thread that progresses it; reused for every operation.
 */
public final class AtomicTarget {
    private final java.util.function.LongFunction<UtilMemoryRegion> regions;
    private MemorySegment segment;
    private long offset;
    private AtomicDatatype datatype;
    private AtomicOp op;
    private long count;

    /**
     * A target for the regions of one domain.
     *
     * @param mrs the domain's registered regions
     */
    public AtomicTarget(MrMap mrs) {
        this(mrs::find);
    }

    /**
     * A target for regions some other object keeps (a utility provider looks up its core's), each found by key.
     *
     * @param regions the region of a key, or null; must not allocate
     */
    public AtomicTarget(java.util.function.LongFunction<UtilMemoryRegion> regions) {
        this.regions = regions;
    }

    /**
     * Checks an operation from the wire; on success the next {@link #apply} performs it.
     *
     * @param kind AtomicRequest.WRITE, FETCH or COMPARE
     * @param datatypeValue the fi_datatype value
     * @param opValue the fi_op value
     * @param key the target region's key
     * @param addr the target address
     * @param elements how many elements
     * @return 0, or a positive errno: EOPNOTSUPP for a combination not offered, ENOKEY for an unknown key,
     *     EACCES for missing access, EINVAL for a range outside the region or spanning two of its segments, or
     *     a misaligned address
     */
    public int check(int kind, int datatypeValue, int opValue, long key, long addr, long elements) {
        datatype = AtomicDatatype.of(datatypeValue);
        op = AtomicOp.of(opValue);
        if (datatype == null || op == null || !AtomicUpdate.supported(kind, datatype, op)) {
            return Errno.EOPNOTSUPP;
        }
        UtilMemoryRegion mr = regions.apply(key);
        if (mr == null) {
            return Errno.ENOKEY;
        }
        long len = elements * datatype.size();
        if (elements <= 0 || len / datatype.size() != elements) {
            return Errno.EINVAL;
        }
        long off = mr.resolve(addr, len, access(kind, op));
        if (off < 0) {
            return (int) -off;
        }
        int seg = mr.segmentIndex(off);
        MemorySegment s = mr.segment(seg);
        long inSeg = off - mr.segmentStart(seg);
        if (inSeg + len > s.byteSize() || !AtomicUpdate.aligned(datatype, s.address() + inSeg)) {
            return Errno.EINVAL;
        }
        segment = s;
        offset = inSeg;
        count = elements;
        return 0;
    }

    private static long access(int kind, AtomicOp op) {
        if (kind == AtomicRequest.WRITE) {
            return Access.REMOTE_WRITE;
        }
        return op == AtomicOp.ATOMIC_READ ? Access.REMOTE_READ : Access.REMOTE_READ | Access.REMOTE_WRITE;
    }

    /** Bytes of the operands (and of the results) of the operation last checked. */
    public long bytes() {
        return count * datatype.size();
    }

    /**
     * Applies the operation last checked.
     *
     * @param src the operands, or null (FI_ATOMIC_READ)
     * @param srcAt the first operand's offset
     * @param cmp the compare operands, or null
     * @param cmpAt the first compare operand's offset
     * @param result receives the previous elements, or null
     * @param resultAt where the first result goes
     */
    public void apply(MemorySegment src, long srcAt, MemorySegment cmp, long cmpAt, MemorySegment result,
                      long resultAt) {
        AtomicUpdate.apply(datatype, op, segment, offset, src, srcAt, cmp, cmpAt, result, resultAt, count);
        segment = null;
    }
}
