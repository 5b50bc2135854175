package io.jfabric.util;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicMsg;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;

import java.lang.foreign.MemorySegment;

/**
 * The ten calls of fi_atomic(3) and the three valid queries, written once for {@link UtilEndpoint}: each form
 * is checked, turned into the posting thread's {@link AtomicRequest} and handed to the endpoint's
 * {@code postAtomic}; the count a query answers comes from the endpoint's {@code atomicLimit} and
 * {@link AtomicUpdate#supported}. Kept apart from UtilEndpoint so that a provider without atomics pays
 * nothing but this object.
 */
final class AtomicEntryPoints {
    private final UtilEndpoint ep;
    private final ThreadLocal<AtomicRequest> requests = ThreadLocal.withInitial(
            () -> new AtomicRequest(Thread.currentThread()));
    /** The request of the thread that posted last: one compare instead of a thread-local lookup per call. */
    private AtomicRequest lastRequest = new AtomicRequest(null);

    AtomicEntryPoints(UtilEndpoint ep) {
        this.ep = ep;
    }

    private AtomicRequest request() {
        AtomicRequest r = lastRequest;
        if (r.owner != Thread.currentThread()) {
            r = requests.get();
            lastRequest = r;
        }
        return r;
    }

    long valid(int kind, AtomicDatatype datatype, AtomicOp op) {
        long limit = datatype == null || op == null ? -Errno.EINVAL : ep.atomicLimit(kind, datatype, op);
        if (limit < 0) {
            return limit;
        }
        return AtomicUpdate.supported(kind, datatype, op) ? limit : -Errno.EOPNOTSUPP;
    }

    /** Checks the request, the combination and the count, and posts it. */
    private int post(AtomicRequest r) {
        int rc = r.check();
        if (rc == 0) {
            long limit = valid(r.kind, r.datatype, r.op);
            if (limit < 0) {
                rc = (int) limit;
            } else if (r.elements > limit || (r.flags & ep.refusedTxLevels()) != 0) {
                rc = -Errno.EINVAL;
            } else {
                rc = ep.postAtomicLocked(r);
            }
        }
        r.clear();
        return rc;
    }

    private static boolean badMsg(AtomicMsg msg) {
        return msg == null || UtilEndpoint.badVector(msg.iov, msg.desc, msg.iovCount) || msg.rmaIocCount < 0
                || msg.rmaIocCount > 0 && (msg.rmaIoc == null || msg.rmaIocCount > msg.rmaIoc.length);
    }

    int atomic(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key, AtomicDatatype datatype,
               AtomicOp op, Object context) {
        return post(request().operands(buf, desc).remote(addr, key)
                .set(AtomicRequest.WRITE, destAddr, datatype, op, context, ep.txFlags()));
    }

    int atomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                AtomicDatatype datatype, AtomicOp op, Object context) {
        if (UtilEndpoint.badVector(iov, desc, count)) {
            return -Errno.EINVAL;
        }
        return post(request().operands(iov, desc, count).remote(addr, key)
                .set(AtomicRequest.WRITE, destAddr, datatype, op, context, ep.txFlags()));
    }

    int atomicmsg(AtomicMsg msg, long flags) {
        if (badMsg(msg)) {
            return -Errno.EINVAL;
        }
        return post(request().operands(msg.iov, msg.desc, msg.iovCount).remote(msg.rmaIoc, msg.rmaIocCount)
                .set(AtomicRequest.WRITE, msg.addr, msg.datatype, msg.op, msg.context, flags & ~OpRequest.INJECT_CALL));
    }

    int injectAtomic(MemorySegment buf, long destAddr, long addr, long key, AtomicDatatype datatype, AtomicOp op) {
        return post(request().operands(buf, null).remote(addr, key)
                .set(AtomicRequest.WRITE, destAddr, datatype, op, null, OpFlags.INJECT | OpRequest.INJECT_CALL));
    }

    int fetchAtomic(MemorySegment buf, MemoryRegion desc, MemorySegment result, MemoryRegion resultDesc,
                    long destAddr, long addr, long key, AtomicDatatype datatype, AtomicOp op, Object context) {
        return post(request().operands(buf, desc).singles(null, null, result, resultDesc).remote(addr, key)
                .set(AtomicRequest.FETCH, destAddr, datatype, op, context, ep.txFlags()));
    }

    int fetchAtomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] resultv,
                     MemoryRegion[] resultDesc, int resultCount, long destAddr, long addr, long key,
                     AtomicDatatype datatype, AtomicOp op, Object context) {
        if (UtilEndpoint.badVector(iov, desc, count) || UtilEndpoint.badVector(resultv, resultDesc, resultCount)) {
            return -Errno.EINVAL;
        }
        return post(request().operands(iov, desc, count).buffers(null, null, 0, resultv, resultDesc, resultCount)
                .remote(addr, key).set(AtomicRequest.FETCH, destAddr, datatype, op, context, ep.txFlags()));
    }

    int fetchAtomicmsg(AtomicMsg msg, MemorySegment[] resultv, MemoryRegion[] resultDesc, int resultCount,
                       long flags) {
        if (badMsg(msg) || UtilEndpoint.badVector(resultv, resultDesc, resultCount)) {
            return -Errno.EINVAL;
        }
        return post(request().operands(msg.iov, msg.desc, msg.iovCount)
                .buffers(null, null, 0, resultv, resultDesc, resultCount)
                .remote(msg.rmaIoc, msg.rmaIocCount)
                .set(AtomicRequest.FETCH, msg.addr, msg.datatype, msg.op, msg.context, flags));
    }

    int compareAtomic(MemorySegment buf, MemoryRegion desc, MemorySegment compare, MemoryRegion compareDesc,
                      MemorySegment result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                      AtomicDatatype datatype, AtomicOp op, Object context) {
        return post(request().operands(buf, desc).singles(compare, compareDesc, result, resultDesc)
                .remote(addr, key).set(AtomicRequest.COMPARE, destAddr, datatype, op, context, ep.txFlags()));
    }

    int compareAtomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] comparev,
                       MemoryRegion[] compareDesc, int compareCount, MemorySegment[] resultv,
                       MemoryRegion[] resultDesc, int resultCount, long destAddr, long addr, long key,
                       AtomicDatatype datatype, AtomicOp op, Object context) {
        if (UtilEndpoint.badVector(iov, desc, count) || UtilEndpoint.badVector(comparev, compareDesc, compareCount)
                || UtilEndpoint.badVector(resultv, resultDesc, resultCount)) {
            return -Errno.EINVAL;
        }
        return post(request().operands(iov, desc, count)
                .buffers(comparev, compareDesc, compareCount, resultv, resultDesc, resultCount).remote(addr, key)
                .set(AtomicRequest.COMPARE, destAddr, datatype, op, context, ep.txFlags()));
    }

    int compareAtomicmsg(AtomicMsg msg, MemorySegment[] comparev, MemoryRegion[] compareDesc, int compareCount,
                         MemorySegment[] resultv, MemoryRegion[] resultDesc, int resultCount, long flags) {
        if (badMsg(msg) || UtilEndpoint.badVector(comparev, compareDesc, compareCount)
                || UtilEndpoint.badVector(resultv, resultDesc, resultCount)) {
            return -Errno.EINVAL;
        }
        return post(request().operands(msg.iov, msg.desc, msg.iovCount)
                .buffers(comparev, compareDesc, compareCount, resultv, resultDesc, resultCount)
                .remote(msg.rmaIoc, msg.rmaIocCount)
                .set(AtomicRequest.COMPARE, msg.addr, msg.datatype, msg.op, msg.context, flags));
    }
}
