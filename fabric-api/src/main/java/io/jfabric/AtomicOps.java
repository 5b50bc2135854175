package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * The calls of fi_atomic(3), part of every {@link Endpoint}. A provider without atomics answers -FI_ENOSYS
 * to each, and does not advertise FI_ATOMIC.
 *
 * <p>Buffers are {@link MemorySegment}s holding whole elements of the datatype in the host's byte order: a
 * buffer's element count is its {@code byteSize()} divided by {@link AtomicDatatype#size()} (a remainder is
 * -FI_EINVAL). The remote {@code addr} and {@code key} are as for RMA ({@link Endpoint#write}): an offset
 * into the target region, or its virtual address with FI_MR_VIRT_ADDR, and the target address must be a
 * multiple of the element size. The target region needs FI_REMOTE_WRITE for the operations that change it,
 * and FI_REMOTE_READ for the fetch and compare forms; a failure after the call returned 0 (wrong key,
 * missing access, a range outside the region) arrives as an error completion, and no target byte changes.
 * The fetch and compare forms write the target's elements from before the operation into {@code result}.
 * One operation holds at most the count the matching {@code …Valid} call answers; each element is updated
 * atomically with respect to every other atomic operation of the same datatype on it (fi_atomic(3)).
 *
 * <p>Like the rest of the data path, the calls return 0 or a negative errno: -FI_EAGAIN (progress and
 * retry), -FI_EINVAL, -FI_EOPNOTSUPP for a datatype and operation the provider does not offer, -FI_ENOSYS.
 */
public interface AtomicOps {

    /**
     * {@code fi_atomic}.
     *
     * @param buf the operands, one per target element
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param addr the target address (offset, or virtual address with FI_MR_VIRT_ADDR)
     * @param key the target region's key
     * @param datatype the element type
     * @param op the operation, one {@link #atomicValid} accepts
     * @param context comes back in the completion, or in its error completion
     * @return 0 when queued, or a negative errno
     */
    default int atomic(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key,
                       AtomicDatatype datatype, AtomicOp op, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_atomicv}: the operands gathered from several buffers into one target array.
     *
     * @param iov the operand buffers
     * @param desc one MemoryRegion per buffer, or null
     * @param count how many entries of {@code iov} to use
     * @param destAddr the peer's fi_addr
     * @param addr the target address
     * @param key the target region's key
     * @param datatype the element type
     * @param op the operation
     * @param context comes back in the completion
     * @return 0 when queued, or a negative errno
     */
    default int atomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                        AtomicDatatype datatype, AtomicOp op, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_atomicmsg}.
     *
     * @param msg operands, remote arrays, datatype and operation; read during the call only
     * @param flags OpFlags for this operation alone (FI_COMPLETION, FI_INJECT, FI_DELIVERY_COMPLETE ...)
     * @return 0 when queued, or a negative errno
     */
    default int atomicmsg(AtomicMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_inject_atomic}: the buffer may be reused at once; no success completion.
     *
     * @param buf the operands
     * @param destAddr the peer's fi_addr
     * @param addr the target address
     * @param key the target region's key
     * @param datatype the element type
     * @param op the operation
     * @return 0 when sent, or a negative errno
     */
    default int injectAtomic(MemorySegment buf, long destAddr, long addr, long key, AtomicDatatype datatype,
                             AtomicOp op) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_fetch_atomic}: the operation, plus the target's previous elements in {@code result}.
     *
     * @param buf the operands; ignored (may be null) for FI_ATOMIC_READ
     * @param desc the buffer's MemoryRegion, or null
     * @param result receives the previous elements, as many bytes as the operands (FI_ATOMIC_READ: its size
     *     gives the count)
     * @param resultDesc the result buffer's MemoryRegion, or null
     * @param destAddr the peer's fi_addr
     * @param addr the target address
     * @param key the target region's key
     * @param datatype the element type
     * @param op the operation, one {@link #fetchAtomicValid} accepts
     * @param context comes back in the completion
     * @return 0 when queued, or a negative errno
     */
    default int fetchAtomic(MemorySegment buf, MemoryRegion desc, MemorySegment result, MemoryRegion resultDesc,
                            long destAddr, long addr, long key, AtomicDatatype datatype, AtomicOp op,
                            Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_fetch_atomicv}.
     *
     * @param iov the operand buffers
     * @param desc one MemoryRegion per buffer, or null
     * @param count how many entries of {@code iov} to use
     * @param resultv the result buffers, scattered in order
     * @param resultDesc one MemoryRegion per result buffer, or null
     * @param resultCount how many entries of {@code resultv} to use
     * @param destAddr the peer's fi_addr
     * @param addr the target address
     * @param key the target region's key
     * @param datatype the element type
     * @param op the operation
     * @param context comes back in the completion
     * @return 0 when queued, or a negative errno
     */
    default int fetchAtomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] resultv,
                             MemoryRegion[] resultDesc, int resultCount, long destAddr, long addr, long key,
                             AtomicDatatype datatype, AtomicOp op, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_fetch_atomicmsg}.
     *
     * @param msg operands, remote arrays, datatype and operation; read during the call only
     * @param resultv the result buffers
     * @param resultDesc one MemoryRegion per result buffer, or null
     * @param resultCount how many entries of {@code resultv} to use
     * @param flags OpFlags for this operation alone
     * @return 0 when queued, or a negative errno
     */
    default int fetchAtomicmsg(AtomicMsg msg, MemorySegment[] resultv, MemoryRegion[] resultDesc, int resultCount,
                               long flags) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_compare_atomic}: a conditional or masked swap, with the target's previous elements in
     * {@code result}.
     *
     * @param buf the operands (the values to store)
     * @param desc the buffer's MemoryRegion, or null
     * @param compare the compare operands (FI_MSWAP: the mask), as many bytes as {@code buf}
     * @param compareDesc the compare buffer's MemoryRegion, or null
     * @param result receives the previous elements, as many bytes as {@code buf}
     * @param resultDesc the result buffer's MemoryRegion, or null
     * @param destAddr the peer's fi_addr
     * @param addr the target address
     * @param key the target region's key
     * @param datatype the element type
     * @param op FI_CSWAP .. FI_MSWAP, one {@link #compareAtomicValid} accepts
     * @param context comes back in the completion
     * @return 0 when queued, or a negative errno
     */
    default int compareAtomic(MemorySegment buf, MemoryRegion desc, MemorySegment compare, MemoryRegion compareDesc,
                              MemorySegment result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                              AtomicDatatype datatype, AtomicOp op, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_compare_atomicv}.
     *
     * @param iov the operand buffers
     * @param desc one MemoryRegion per buffer, or null
     * @param count how many entries of {@code iov} to use
     * @param comparev the compare buffers
     * @param compareDesc one MemoryRegion per compare buffer, or null
     * @param compareCount how many entries of {@code comparev} to use
     * @param resultv the result buffers
     * @param resultDesc one MemoryRegion per result buffer, or null
     * @param resultCount how many entries of {@code resultv} to use
     * @param destAddr the peer's fi_addr
     * @param addr the target address
     * @param key the target region's key
     * @param datatype the element type
     * @param op the operation
     * @param context comes back in the completion
     * @return 0 when queued, or a negative errno
     */
    default int compareAtomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] comparev,
                               MemoryRegion[] compareDesc, int compareCount, MemorySegment[] resultv,
                               MemoryRegion[] resultDesc, int resultCount, long destAddr, long addr, long key,
                               AtomicDatatype datatype, AtomicOp op, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_compare_atomicmsg}.
     *
     * @param msg operands, remote arrays, datatype and operation; read during the call only
     * @param comparev the compare buffers
     * @param compareDesc one MemoryRegion per compare buffer, or null
     * @param compareCount how many entries of {@code comparev} to use
     * @param resultv the result buffers
     * @param resultDesc one MemoryRegion per result buffer, or null
     * @param resultCount how many entries of {@code resultv} to use
     * @param flags OpFlags for this operation alone
     * @return 0 when queued, or a negative errno
     */
    default int compareAtomicmsg(AtomicMsg msg, MemorySegment[] comparev, MemoryRegion[] compareDesc,
                                 int compareCount, MemorySegment[] resultv, MemoryRegion[] resultDesc,
                                 int resultCount, long flags) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_atomicvalid}: whether {@link #atomic} offers this datatype and operation.
     *
     * @param datatype the element type
     * @param op the operation
     * @return the most elements one operation may hold (at least 1), or a negative errno: -FI_EOPNOTSUPP for
     *     a combination the provider does not offer, -FI_ENOSYS without atomics
     */
    default long atomicValid(AtomicDatatype datatype, AtomicOp op) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_fetch_atomicvalid}.
     *
     * @param datatype the element type
     * @param op the operation
     * @return the most elements one fetch operation may hold, or a negative errno
     */
    default long fetchAtomicValid(AtomicDatatype datatype, AtomicOp op) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_compare_atomicvalid}.
     *
     * @param datatype the element type
     * @param op the operation
     * @return the most elements one compare operation may hold, or a negative errno
     */
    default long compareAtomicValid(AtomicDatatype datatype, AtomicOp op) {
        return -Errno.ENOSYS;
    }
}
