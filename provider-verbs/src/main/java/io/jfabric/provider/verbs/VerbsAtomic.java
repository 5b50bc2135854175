package io.jfabric.provider.verbs;

import io.jfabric.Access;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.provider.verbs.ffi.generated.ibv_send_wr;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.AtomicRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fi_atomic(3) on an RC queue pair, through the adapter's own atomics, as libfabric's verbs: one fenced 8-byte work
 * request per operation, count 1, on FI_INT64 and FI_UINT64. FI_SUM is IBV_WR_ATOMIC_FETCH_AND_ADD, FI_CSWAP
 * IBV_WR_ATOMIC_CMP_AND_SWP (their operands travel in the work request; the adapter writes the target's previous
 * value into a registered buffer: the caller's result for the fetching forms, a scratch word of this endpoint for
 * fi_atomic); FI_ATOMIC_WRITE is an 8-byte RDMA write and fetching FI_ATOMIC_READ an 8-byte RDMA read. Everything
 * else is refused: RC atomics know no other operation or width.
 */
final class VerbsAtomic {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;
    /**
     * ibv_send_wr.wr.atomic, a union member over wr.rdma (verbs.h): remote_addr at wr's start as in rdma, then
     * compare_add, swap, rkey, each 8 bytes apart (rdma-core 44, x86_64: 40, 48, 56, 64).
     */
    private static final long REMOTE_ADDR = ibv_send_wr.wr_rdma_remote_addr$offset();
    private static final long COMPARE_ADD = REMOTE_ADDR + 8;
    private static final long SWAP = REMOTE_ADDR + 16;
    private static final long RKEY = REMOTE_ADDR + 24;

    private final VerbsQp qp;
    /** Where the adapter puts the previous value that fi_atomic (no fetch) does not want. */
    private final MemorySegment scratch;
    private final MemoryRegion scratchMr;
    private final int scratchLkey;

    /** @param arena the endpoint's: holds the scratch word, registered with local write on {@code domain} */
    VerbsAtomic(VerbsQp qp, VerbsDomain domain, Arena arena) {
        this.qp = qp;
        if (domain.device().hasAtomics()) {
            scratch = arena.allocate(8, 8);
            scratchMr = domain.registerMemory(scratch, Access.READ | Access.WRITE, 0, 0, 0);
            scratchLkey = ((VerbsMemoryRegion) scratchMr).lkey();
        } else {
            scratch = null;
            scratchMr = null;
            scratchLkey = 0;
        }
    }

    /** Writes wr.atomic of {@code wr}. */
    static void target(MemorySegment wr, long raddr, long compareAdd, long swap, int rkey) {
        wr.set(ValueLayout.JAVA_LONG, REMOTE_ADDR, raddr);
        wr.set(ValueLayout.JAVA_LONG, COMPARE_ADD, compareAdd);
        wr.set(ValueLayout.JAVA_LONG, SWAP, swap);
        wr.set(ValueLayout.JAVA_INT, RKEY, rkey);
    }

    /** fi_atomicvalid and its kin: 1 for what the adapter executes, -FI_EOPNOTSUPP for the rest. */
    long limit(int kind, AtomicDatatype datatype, AtomicOp op) {
        if (scratch == null) {
            return -Errno.ENOSYS;
        }
        if (datatype != AtomicDatatype.INT64 && datatype != AtomicDatatype.UINT64) {
            return -Errno.EOPNOTSUPP;
        }
        boolean executes = switch (kind) {
            case AtomicRequest.WRITE -> op == AtomicOp.SUM || op == AtomicOp.ATOMIC_WRITE;
            case AtomicRequest.FETCH -> op == AtomicOp.SUM || op == AtomicOp.ATOMIC_READ;
            default -> op == AtomicOp.CSWAP;
        };
        return executes ? 1 : -Errno.EOPNOTSUPP;
    }

    /** One checked request of one element (the entry points refused more than {@link #limit}). */
    int post(AtomicRequest r) {
        long raddr = r.rmaIoc[0].addr;
        if ((raddr & 7) != 0) {
            return -Errno.EINVAL; // RC atomics act on naturally aligned 8-byte words only
        }
        // fenced, as libfabric's verbs: the operation waits for earlier reads and atomics of this queue pair
        long flags = r.flags | OpFlags.FENCE;
        long key = r.rmaIoc[0].key;
        if (r.op == AtomicOp.ATOMIC_WRITE) {
            MemorySegment src = element(r.iov, r.count);
            if (!src.isNative()) {
                return -Errno.EINVAL; // the adapter (or the inline copy) reads it by address
            }
            int srcKey = r.desc != null && r.desc[0] instanceof VerbsMemoryRegion mr && mr.covers(src) ? mr.lkey() : 0;
            // without a registration the 8 bytes go inline (every RC adapter inlines at least that much)
            return qp.atomic(verbs_h.IBV_WR_RDMA_WRITE, src, srcKey, raddr, key, 0, 0, r.context, flags,
                    OpFlags.ATOMIC | OpFlags.WRITE);
        }
        MemorySegment local;
        int lkey;
        if (r.kind == AtomicRequest.WRITE) {
            local = scratch;
            lkey = scratchLkey;
        } else {
            local = r.result[0];
            if (local.byteSize() != 8 || !local.isNative()
                    || !(r.resultDesc != null && r.resultDesc[0] instanceof VerbsMemoryRegion mr && mr.covers(local))) {
                return -Errno.EINVAL; // FI_MR_LOCAL: the adapter writes the result, so it must be registered
            }
            lkey = ((VerbsMemoryRegion) r.resultDesc[0]).lkey();
        }
        long dir = r.kind == AtomicRequest.WRITE ? OpFlags.WRITE : OpFlags.READ;
        if (r.op == AtomicOp.ATOMIC_READ) {
            return qp.atomic(verbs_h.IBV_WR_RDMA_READ, local, lkey, raddr, key, 0, 0, r.context, flags,
                    OpFlags.ATOMIC | dir);
        }
        long operand = element(r.iov, r.count).get(WORD, 0);
        if (r.kind == AtomicRequest.COMPARE) {
            return qp.atomic(verbs_h.IBV_WR_ATOMIC_CMP_AND_SWP, local, lkey, raddr, key,
                    element(r.compare, r.compareCount).get(WORD, 0), operand, r.context, flags, OpFlags.ATOMIC | dir);
        }
        return qp.atomic(verbs_h.IBV_WR_ATOMIC_FETCH_AND_ADD, local, lkey, raddr, key, operand, 0, r.context, flags,
                OpFlags.ATOMIC | dir);
    }

    /** The one 8-byte element among {@code count} buffers (the entry points checked there is exactly one). */
    private static MemorySegment element(MemorySegment[] bufs, int count) {
        for (int i = 0; i < count - 1; i++) {
            if (bufs[i].byteSize() != 0) {
                return bufs[i];
            }
        }
        return bufs[count - 1];
    }

    void close() {
        if (scratchMr != null) {
            scratchMr.close();
        }
    }
}
