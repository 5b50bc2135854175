package io.jfabric.util;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicIoc;
import io.jfabric.AtomicOp;
import io.jfabric.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * One atomic operation, as any of fi_atomic(3)'s ten entry points describes it, in named fields: what
 * {@link UtilEndpoint} hands its provider's {@code postAtomic}. Like {@link OpRequest} it belongs to one
 * endpoint and the posting thread, is checked before the hook sees it (every buffer a whole number of
 * elements, the local and remote counts equal, result and compare buffers as long as the operands), and is
 * valid only during the hook.
 */
public final class AtomicRequest {
    /** fi_atomic: the target changes, nothing comes back. */
    public static final int WRITE = 0;
    /** fi_fetch_atomic: the target's previous elements come back in the result buffers. */
    public static final int FETCH = 1;
    /** fi_compare_atomic: a swap conditional on (or masked by) the compare buffers, with results. */
    public static final int COMPARE = 2;

    final Thread owner;

    public int kind;
    /** The operands; none for a fetching FI_ATOMIC_READ. */
    public MemorySegment[] iov;
    public MemoryRegion[] desc;
    public int count;
    public MemorySegment[] compare;
    public MemoryRegion[] compareDesc;
    public int compareCount;
    public MemorySegment[] result;
    public MemoryRegion[] resultDesc;
    public int resultCount;
    public long peer;
    /** The remote arrays; their counts add up to {@link #elements}. */
    public AtomicIoc[] rmaIoc;
    public int rmaCount;
    public AtomicDatatype datatype;
    public AtomicOp op;
    /** How many elements the operation holds. */
    public long elements;
    public Object context;
    /** The endpoint's default op_flags for the plain calls, the caller's for the msg forms; FI_INJECT for inject. */
    public long flags;

    private final MemorySegment[] oneIov = new MemorySegment[1];
    private final MemoryRegion[] oneDesc = new MemoryRegion[1];
    private final MemorySegment[] oneCompare = new MemorySegment[1];
    private final MemoryRegion[] oneCompareDesc = new MemoryRegion[1];
    private final MemorySegment[] oneResult = new MemorySegment[1];
    private final MemoryRegion[] oneResultDesc = new MemoryRegion[1];
    private final AtomicIoc oneIoc = new AtomicIoc();
    private final AtomicIoc[] oneRmaIoc = {oneIoc};

    AtomicRequest(Thread owner) {
        this.owner = owner;
    }

    /** The operation's size in bytes. */
    public long bytes() {
        return elements * datatype.size();
    }

    AtomicRequest operands(MemorySegment buf, MemoryRegion mr) {
        oneIov[0] = buf;
        oneDesc[0] = mr;
        return operands(oneIov, oneDesc, buf == null ? 0 : 1);
    }

    AtomicRequest operands(MemorySegment[] segments, MemoryRegion[] mrs, int n) {
        iov = segments;
        desc = mrs;
        count = n;
        compareCount = 0;
        resultCount = 0;
        return this;
    }

    /** The single compare and result buffers of fi_fetch_atomic and fi_compare_atomic (null: none). */
    AtomicRequest singles(MemorySegment cmp, MemoryRegion cmpMr, MemorySegment res, MemoryRegion resMr) {
        oneCompare[0] = cmp;
        oneCompareDesc[0] = cmpMr;
        oneResult[0] = res;
        oneResultDesc[0] = resMr;
        return buffers(oneCompare, oneCompareDesc, cmp == null ? 0 : 1, oneResult, oneResultDesc, 1);
    }

    /** The compare and result buffers of the iov and msg forms. */
    AtomicRequest buffers(MemorySegment[] cmp, MemoryRegion[] cmpMrs, int cmpCount, MemorySegment[] res,
                          MemoryRegion[] resMrs, int resCount) {
        compare = cmp;
        compareDesc = cmpMrs;
        compareCount = cmpCount;
        result = res;
        resultDesc = resMrs;
        resultCount = resCount;
        return this;
    }

    /** One remote array; its count is filled in once the local buffers are counted. */
    AtomicRequest remote(long addr, long key) {
        oneIoc.set(addr, -1, key);
        rmaIoc = oneRmaIoc;
        rmaCount = 1;
        return this;
    }

    AtomicRequest remote(AtomicIoc[] iocs, int n) {
        rmaIoc = iocs;
        rmaCount = n;
        return this;
    }

    AtomicRequest set(int kind, long peer, AtomicDatatype datatype, AtomicOp op, Object context, long flags) {
        this.kind = kind;
        this.peer = peer;
        this.datatype = datatype;
        this.op = op;
        this.context = context;
        this.flags = flags;
        return this;
    }

    /**
     * Counts the elements and checks the shapes; fills in a single remote array's count.
     *
     * @return 0, or -FI_EINVAL
     */
    int check() {
        if (datatype == null || op == null) {
            return -io.jfabric.Errno.EINVAL;
        }
        int size = datatype.size();
        long n = count(iov, count, size);
        long c = kind == COMPARE ? count(compare, compareCount, size) : 0;
        long r = kind == WRITE ? 0 : count(result, resultCount, size);
        if (n < 0 || c < 0 || r < 0) {
            return -io.jfabric.Errno.EINVAL;
        }
        boolean readOnly = kind == FETCH && op == AtomicOp.ATOMIC_READ;
        elements = readOnly ? r : n;
        if (elements == 0 || kind != WRITE && r != elements || kind == COMPARE && c != elements) {
            return -io.jfabric.Errno.EINVAL;
        }
        if (rmaIoc == oneRmaIoc) {
            oneIoc.count = elements;
        }
        long remote = 0;
        for (int i = 0; i < rmaCount; i++) {
            if (rmaIoc[i] == null || rmaIoc[i].count < 0) {
                return -io.jfabric.Errno.EINVAL;
            }
            remote += rmaIoc[i].count;
        }
        return remote == elements ? 0 : -io.jfabric.Errno.EINVAL;
    }

    /** Elements in the first {@code n} buffers, or -1 when a buffer is null or not a whole number of them. */
    private static long count(MemorySegment[] segments, int n, int size) {
        long total = 0;
        for (int i = 0; i < n; i++) {
            MemorySegment s = segments[i];
            if (s == null || s.byteSize() % size != 0) {
                return -1;
            }
            total += s.byteSize() / size;
        }
        return total;
    }

    /** Drops the references the caller passed. */
    void clear() {
        singles(null, null, null, null);
        operands(null, null);
        rmaIoc = null;
        context = null;
    }
}
