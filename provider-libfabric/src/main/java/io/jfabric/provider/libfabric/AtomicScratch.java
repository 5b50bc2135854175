package io.jfabric.provider.libfabric;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicIoc;
import io.jfabric.AtomicMsg;
import io.jfabric.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Preallocated native memory for the iov and msg forms of fi_atomic(3) on one endpoint: three {@code struct
 * fi_ioc} arrays with their desc arrays (operands, compare operands, results), one {@code struct fi_rma_ioc}
 * array and one {@code struct fi_msg_atomic}. jextract generated no bindings for these structs, so their LP64
 * layouts from rdma/fi_atomic.h and rdma/fi_rma.h are written out here. On an FI_THREAD_SAFE domain the caller
 * fills it and makes the native call under its monitor.
 */
final class AtomicScratch {
    static final int OPERANDS = 0;
    static final int COMPARE = 1;
    static final int RESULTS = 2;

    /** {@code struct fi_ioc {void *addr; size_t count;}}. */
    private static final long IOC_SIZE = 16;
    /** {@code struct fi_rma_ioc {uint64_t addr; size_t count; uint64_t key;}}. */
    private static final long RMA_IOC_SIZE = 24;
    /** {@code struct fi_msg_atomic}: msg_iov, desc, iov_count, addr, rma_iov, rma_iov_count, then the two enums. */
    private static final long MSG_IOV = 0, MSG_DESC = 8, MSG_IOV_COUNT = 16, MSG_ADDR = 24, MSG_RMA_IOV = 32,
            MSG_RMA_IOV_COUNT = 40, MSG_DATATYPE = 48, MSG_OP = 52, MSG_CONTEXT = 56, MSG_DATA = 64, MSG_SIZE = 72;

    /** The elements the last fill of each array held in all (fi_atomic(3)'s count, summed over the iov). */
    final long[] elements = new long[3];
    private final MemorySegment[] ioc = new MemorySegment[3];
    private final MemorySegment[] desc = new MemorySegment[3];
    final long[] iocAddr = new long[3];
    final long[] descAddr = new long[3];
    private final MemorySegment rmaIoc;
    private final MemorySegment msg;
    final long msgAddr;

    AtomicScratch(Arena arena) {
        for (int i = 0; i < 3; i++) {
            ioc[i] = arena.allocate(IOC_SIZE * IovScratch.MAX_IOV, 8);
            desc[i] = arena.allocate(ValueLayout.ADDRESS, IovScratch.MAX_IOV);
            iocAddr[i] = ioc[i].address();
            descAddr[i] = desc[i].address();
        }
        rmaIoc = arena.allocate(RMA_IOC_SIZE * IovScratch.MAX_IOV, 8);
        msg = arena.allocate(MSG_SIZE, 8);
        msgAddr = msg.address();
    }

    /**
     * Copies {@code count} buffers of whole {@code t} elements and their descriptors into array {@code which};
     * false on bad input (too many, a heap or partial-element buffer, a descriptor the domain needs but lacks).
     */
    boolean fill(int which, MemorySegment[] bufs, MemoryRegion[] mrs, int count, AtomicDatatype t) {
        elements[which] = 0;
        if (count == 0) {
            return t != null; // FI_ATOMIC_READ's operands may be absent
        }
        if (t == null || count < 0 || count > IovScratch.MAX_IOV || bufs == null || count > bufs.length) {
            return false;
        }
        MemorySegment a = ioc[which];
        for (int i = 0; i < count; i++) {
            MemorySegment b = bufs[i];
            MemorySegment d = LibfabricMemoryRegion.descOf(mrs == null || i >= mrs.length ? null : mrs[i]);
            if (b == null || !b.isNative() || b.byteSize() % t.size() != 0 || d == null) {
                return false;
            }
            a.set(ValueLayout.JAVA_LONG, i * IOC_SIZE, b.address());
            a.set(ValueLayout.JAVA_LONG, i * IOC_SIZE + 8, b.byteSize() / t.size());
            desc[which].setAtIndex(ValueLayout.ADDRESS, i, d);
            elements[which] += b.byteSize() / t.size();
        }
        return true;
    }

    /** Copies the message's remote arrays, operands and header fields; false on bad input. */
    boolean fill(AtomicMsg m) {
        int n = m.rmaIocCount;
        if (m.datatype == null || m.op == null || n < 0 || n > IovScratch.MAX_IOV || n > 0 && (m.rmaIoc == null
                || n > m.rmaIoc.length) || !fill(OPERANDS, m.iov, m.desc, m.iovCount, m.datatype)) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            AtomicIoc r = m.rmaIoc[i];
            if (r == null) {
                return false;
            }
            rmaIoc.set(ValueLayout.JAVA_LONG, i * RMA_IOC_SIZE, r.addr);
            rmaIoc.set(ValueLayout.JAVA_LONG, i * RMA_IOC_SIZE + 8, r.count);
            rmaIoc.set(ValueLayout.JAVA_LONG, i * RMA_IOC_SIZE + 16, r.key);
        }
        msg.set(ValueLayout.JAVA_LONG, MSG_IOV, iocAddr[OPERANDS]);
        msg.set(ValueLayout.JAVA_LONG, MSG_DESC, descAddr[OPERANDS]);
        msg.set(ValueLayout.JAVA_LONG, MSG_IOV_COUNT, m.iovCount);
        msg.set(ValueLayout.JAVA_LONG, MSG_ADDR, m.addr);
        msg.set(ValueLayout.JAVA_LONG, MSG_RMA_IOV, rmaIoc.address());
        msg.set(ValueLayout.JAVA_LONG, MSG_RMA_IOV_COUNT, n);
        msg.set(ValueLayout.JAVA_INT, MSG_DATATYPE, m.datatype.value());
        msg.set(ValueLayout.JAVA_INT, MSG_OP, m.op.value());
        msg.set(ValueLayout.JAVA_LONG, MSG_DATA, m.data);
        return true;
    }

    /** Sets the message's context: the address of the operation's context slot. */
    void context(long slotAddress) {
        msg.set(ValueLayout.JAVA_LONG, MSG_CONTEXT, slotAddress);
    }
}
