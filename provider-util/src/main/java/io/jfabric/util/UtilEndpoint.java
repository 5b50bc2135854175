package io.jfabric.util;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicMsg;
import io.jfabric.AtomicOp;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;
import io.jfabric.TaggedMsg;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.Lock;

/**
 * The 27 data-path entry points of fi_msg(3), fi_tagged(3) and fi_rma(3), written once: every plain, iov,
 * msg, data and inject form is checked and turned into an {@link OpRequest} for one of four provider hooks
 * ({@link #postSend}, {@link #postRecv}, {@link #postRead}, {@link #postWrite}), as libfabric's providers
 * funnel their entry points into one generic send or receive. A provider without RMA leaves the RMA hooks
 * alone and its RMA calls answer -FI_ENOSYS.
 *
 * <p>The request is the posting thread's own for this endpoint (see {@link OpRequest}), so this layer allocates
 * nothing once warm. It calls every hook under the lock the provider gave {@link #lockHooksWith}, none by default:
 * the provider decides what its threading level needs.
 */
public abstract class UtilEndpoint implements Endpoint {
    /**
     * The posting thread's request for this endpoint. Per endpoint, not per thread alone: a hook may post to
     * another endpoint on the same thread (ofi_rxm posts to its core endpoint inside its own send), and that
     * inner post must not overwrite the outer request.
     */
    private final ThreadLocal<OpRequest> requests = ThreadLocal.withInitial(
            () -> new OpRequest(Thread.currentThread()));

    /** The request of the thread that posted last: one compare instead of a thread-local lookup per call. */
    private OpRequest lastRequest = new OpRequest(null);

    /**
     * The completion levels of fi_cq(3) a transmit may ask for: FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE,
     * FI_DELIVERY_COMPLETE, FI_COMMIT_COMPLETE and FI_MATCH_COMPLETE.
     */
    public static final long TX_LEVELS = OpFlags.INJECT_COMPLETE | OpFlags.TRANSMIT_COMPLETE
            | OpFlags.DELIVERY_COMPLETE | OpFlags.COMMIT_COMPLETE | OpFlags.MATCH_COMPLETE;

    /** The levels this endpoint cannot honour: a send or write asking for one answers -FI_EINVAL. */
    private long refusedTxLevels;

    /** Sends and tagged sends: {@code op.flags} holds FI_TAGGED for a tagged one. */
    protected abstract int postSend(OpRequest op);

    /** Receives and tagged receives; a tagged msg-form receive may carry FI_PEEK, FI_CLAIM or FI_DISCARD. */
    protected abstract int postRecv(OpRequest op);

    /** RMA read from {@code op.peer}'s ranges {@code op.rmaIov} into the local buffers. */
    protected int postRead(OpRequest op) {
        return -Errno.ENOSYS;
    }

    /** RMA write of the local buffers to {@code op.peer}'s ranges; FI_REMOTE_CQ_DATA for writedata. */
    protected int postWrite(OpRequest op) {
        return -Errno.ENOSYS;
    }

    /** The flags of a plain transmit call (send, tsend, read, write ...): the endpoint's default op_flags. */
    protected long txFlags() {
        return 0;
    }

    /** The flags of a plain receive call: the endpoint's default receive op_flags. */
    protected long rxFlags() {
        return 0;
    }

    /**
     * Declares the completion levels the provider honours (a stronger level is reported as soon as a weaker one
     * asked for is reached, so honouring a level means completing no earlier than it says). A send or write
     * whose flags ask for another level answers -FI_EINVAL, and so does opening the endpoint with such a level
     * among its default tx op_flags.
     *
     * @param levels      TX_LEVELS bits the provider honours
     * @param defaultTx   the endpoint's default tx op_flags (tx_attr.op_flags of its info)
     * @param what        names the endpoint in the exception
     * @throws io.jfabric.FabricException EINVAL when {@code defaultTx} asks for a level not honoured
     */
    protected final void honourTxLevels(long levels, long defaultTx, String what) {
        refusedTxLevels = TX_LEVELS & ~levels;
        long refused = defaultTx & refusedTxLevels;
        if (refused != 0) {
            throw new io.jfabric.FabricException(Errno.EINVAL, what + " cannot honour tx op_flags "
                    + OpFlags.toString(refused) + "; it honours " + OpFlags.toString(levels)
                    + " (ask for those in the hints' tx_attr.op_flags)");
        }
    }

    private OpRequest request() {
        OpRequest r = lastRequest;
        Thread me = Thread.currentThread();
        if (r.owner != me) {
            r = requests.get();
            lastRequest = r;
        }
        return r;
    }

    static boolean badVector(MemorySegment[] iov, MemoryRegion[] desc, int count) {
        return count < 0 || count > 0 && (iov == null || count > iov.length || desc != null && count > desc.length);
    }

    private static final int SEND = 0;
    private static final int RECV = 1;
    private static final int READ = 2;
    private static final int WRITE = 3;

    /** Taken around every hook call; null where the provider's threading level needs none. */
    private Lock hookLock;

    /**
     * Has every data-path hook ({@link #postSend}, {@link #postRecv}, {@link #postRead}, {@link #postWrite},
     * {@link #postAtomic}) called under {@code lock}, so that a provider whose threading level needs a lock
     * around its posts does not wrap each hook itself ({@link NoLock} for none). Call it from the constructor.
     */
    protected final void lockHooksWith(Lock lock) {
        hookLock = lock == NoLock.INSTANCE ? null : lock;
    }

    // Without a lock each form calls its hook directly: small enough for C2 to inline the provider's whole post
    // path into the caller (docs/performance.md, "Post paths small enough to inline").
    private int send(OpRequest r) {
        int rc = hookLock == null ? postSend(r) : locked(SEND, r);
        r.clear();
        return rc;
    }

    private int recv(OpRequest r) {
        int rc = hookLock == null ? postRecv(r) : locked(RECV, r);
        r.clear();
        return rc;
    }

    private int read(OpRequest r) {
        int rc = hookLock == null ? postRead(r) : locked(READ, r);
        r.clear();
        return rc;
    }

    private int write(OpRequest r) {
        int rc = hookLock == null ? postWrite(r) : locked(WRITE, r);
        r.clear();
        return rc;
    }

    private int locked(int hook, OpRequest r) {
        Lock lock = hookLock;
        lock.lock();
        try {
            return switch (hook) {
                case SEND -> postSend(r);
                case RECV -> postRecv(r);
                case READ -> postRead(r);
                default -> postWrite(r);
            };
        } finally {
            lock.unlock();
        }
    }

    /** {@link #postAtomic} under the hook lock, for {@link AtomicEntryPoints}. */
    final int postAtomicLocked(AtomicRequest r) {
        Lock lock = hookLock;
        if (lock == null) {
            return postAtomic(r);
        }
        lock.lock();
        try {
            return postAtomic(r);
        } finally {
            lock.unlock();
        }
    }

    // ---- messages ----------------------------------------------------------------------------------

    @Override
    public final int send(MemorySegment buf, MemoryRegion desc, long destAddr, Object context) {
        return send(request().one(buf, desc).set(destAddr, 0, 0, 0, context, txFlags()));
    }

    @Override
    public final int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object context) {
        if (badVector(iov, desc, count)) {
            return -Errno.EINVAL;
        }
        return send(request().vector(iov, desc, count).set(destAddr, 0, 0, 0, context, txFlags()));
    }

    @Override
    public final int sendmsg(Msg msg, long flags) {
        if ((flags & refusedTxLevels) != 0 || msg == null || badVector(msg.iov, msg.desc, msg.iovCount)) {
            return -Errno.EINVAL;
        }
        return send(request().vector(msg.iov, msg.desc, msg.iovCount)
                .set(msg.addr, 0, 0, msg.data, msg.context, flags & ~OpRequest.INJECT_CALL));
    }

    @Override
    public final int inject(MemorySegment buf, long destAddr) {
        return send(request().one(buf, null).set(destAddr, 0, 0, 0, null,
                OpFlags.INJECT | OpRequest.INJECT_CALL));
    }

    @Override
    public final int senddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return send(request().one(buf, desc).set(destAddr, 0, 0, data, context,
                txFlags() | OpFlags.REMOTE_CQ_DATA));
    }

    @Override
    public final int injectdata(MemorySegment buf, long data, long destAddr) {
        return send(request().one(buf, null).set(destAddr, 0, 0, data, null,
                OpFlags.INJECT | OpRequest.INJECT_CALL | OpFlags.REMOTE_CQ_DATA));
    }

    @Override
    public final int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object context) {
        return recv(request().one(buf, desc).set(srcAddr, 0, 0, 0, context, rxFlags()));
    }

    @Override
    public final int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        if (badVector(iov, desc, count)) {
            return -Errno.EINVAL;
        }
        return recv(request().vector(iov, desc, count).set(srcAddr, 0, 0, 0, context, rxFlags()));
    }

    @Override
    public final int recvmsg(Msg msg, long flags) {
        if (msg == null || badVector(msg.iov, msg.desc, msg.iovCount)) {
            return -Errno.EINVAL;
        }
        return recv(request().vector(msg.iov, msg.desc, msg.iovCount).set(msg.addr, 0, 0, 0, msg.context, flags));
    }

    // ---- tagged messages ---------------------------------------------------------------------------

    @Override
    public final int tsend(MemorySegment buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        return send(request().one(buf, desc).set(destAddr, tag, 0, 0, context, txFlags() | OpFlags.TAGGED));
    }

    @Override
    public final int tsendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag,
                            Object context) {
        if (badVector(iov, desc, count)) {
            return -Errno.EINVAL;
        }
        return send(request().vector(iov, desc, count).set(destAddr, tag, 0, 0, context,
                txFlags() | OpFlags.TAGGED));
    }

    @Override
    public final int tsendmsg(TaggedMsg msg, long flags) {
        if ((flags & refusedTxLevels) != 0 || msg == null || badVector(msg.iov, msg.desc, msg.iovCount)) {
            return -Errno.EINVAL;
        }
        return send(request().vector(msg.iov, msg.desc, msg.iovCount)
                .set(msg.addr, msg.tag, 0, msg.data, msg.context, flags & ~OpRequest.INJECT_CALL | OpFlags.TAGGED));
    }

    @Override
    public final int tinject(MemorySegment buf, long destAddr, long tag) {
        return send(request().one(buf, null).set(destAddr, tag, 0, 0, null,
                OpFlags.INJECT | OpRequest.INJECT_CALL | OpFlags.TAGGED));
    }

    @Override
    public final int tsenddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long tag,
                               Object context) {
        return send(request().one(buf, desc).set(destAddr, tag, 0, data, context,
                txFlags() | OpFlags.TAGGED | OpFlags.REMOTE_CQ_DATA));
    }

    @Override
    public final int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        return send(request().one(buf, null).set(destAddr, tag, 0, data, null,
                OpFlags.INJECT | OpRequest.INJECT_CALL | OpFlags.TAGGED | OpFlags.REMOTE_CQ_DATA));
    }

    @Override
    public final int trecv(MemorySegment buf, MemoryRegion desc, long srcAddr, long tag, long ignore,
                           Object context) {
        return recv(request().one(buf, desc).set(srcAddr, tag, ignore, 0, context, rxFlags() | OpFlags.TAGGED));
    }

    @Override
    public final int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag,
                            long ignore, Object context) {
        if (badVector(iov, desc, count)) {
            return -Errno.EINVAL;
        }
        return recv(request().vector(iov, desc, count).set(srcAddr, tag, ignore, 0, context,
                rxFlags() | OpFlags.TAGGED));
    }

    @Override
    public final int trecvmsg(TaggedMsg msg, long flags) {
        if (msg == null || badVector(msg.iov, msg.desc, msg.iovCount)) {
            return -Errno.EINVAL;
        }
        return recv(request().vector(msg.iov, msg.desc, msg.iovCount)
                .set(msg.addr, msg.tag, msg.ignore, 0, msg.context, flags | OpFlags.TAGGED));
    }

    // ---- RMA ---------------------------------------------------------------------------------------

    @Override
    public final int read(MemorySegment buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return read(request().one(buf, desc).remote(addr, key).set(srcAddr, 0, 0, 0, context, txFlags()));
    }

    @Override
    public final int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                           Object context) {
        if (badVector(iov, desc, count)) {
            return -Errno.EINVAL;
        }
        return read(request().vector(iov, desc, count).remote(addr, key)
                .set(srcAddr, 0, 0, 0, context, txFlags()));
    }

    @Override
    public final int readmsg(RmaMsg msg, long flags) {
        if (msg == null || badVector(msg.iov, msg.desc, msg.iovCount) || badRemote(msg)) {
            return -Errno.EINVAL;
        }
        OpRequest r = request().vector(msg.iov, msg.desc, msg.iovCount);
        r.rmaIov = msg.rmaIov;
        r.rmaCount = msg.rmaIovCount;
        return read(r.set(msg.addr, 0, 0, msg.data, msg.context, flags));
    }

    @Override
    public final int write(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key,
                           Object context) {
        return write(request().one(buf, desc).remote(addr, key).set(destAddr, 0, 0, 0, context, txFlags()));
    }

    @Override
    public final int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                            Object context) {
        if (badVector(iov, desc, count)) {
            return -Errno.EINVAL;
        }
        return write(request().vector(iov, desc, count).remote(addr, key)
                .set(destAddr, 0, 0, 0, context, txFlags()));
    }

    @Override
    public final int writemsg(RmaMsg msg, long flags) {
        if ((flags & refusedTxLevels) != 0 || msg == null || badVector(msg.iov, msg.desc, msg.iovCount)
                || badRemote(msg)) {
            return -Errno.EINVAL;
        }
        OpRequest r = request().vector(msg.iov, msg.desc, msg.iovCount);
        r.rmaIov = msg.rmaIov;
        r.rmaCount = msg.rmaIovCount;
        return write(r.set(msg.addr, 0, 0, msg.data, msg.context, flags & ~OpRequest.INJECT_CALL));
    }

    @Override
    public final int writedata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                               Object context) {
        return write(request().one(buf, desc).remote(addr, key).set(destAddr, 0, 0, data, context,
                txFlags() | OpFlags.REMOTE_CQ_DATA));
    }

    @Override
    public final int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        return write(request().one(buf, null).remote(addr, key).set(destAddr, 0, 0, 0, null,
                OpFlags.INJECT | OpRequest.INJECT_CALL));
    }

    @Override
    public final int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        return write(request().one(buf, null).remote(addr, key).set(destAddr, 0, 0, data, null,
                OpFlags.INJECT | OpRequest.INJECT_CALL | OpFlags.REMOTE_CQ_DATA));
    }

    private static boolean badRemote(RmaMsg msg) {
        return msg.rmaIovCount < 0 || msg.rmaIovCount > 0 && (msg.rmaIov == null || msg.rmaIovCount > msg.rmaIov.length);
    }

    // ---- atomics (fi_atomic(3)): AtomicEntryPoints checks every form and calls postAtomic -------------

    private final AtomicEntryPoints atomics = new AtomicEntryPoints(this);

    /** An atomic operation, checked as {@link AtomicRequest} says, its count within {@link #atomicLimit}. */
    protected int postAtomic(AtomicRequest op) {
        return -Errno.ENOSYS;
    }

    /**
     * The most elements one atomic operation of {@code kind} (AtomicRequest.WRITE, FETCH, COMPARE) on
     * {@code datatype} may hold; -FI_ENOSYS without atomics, -FI_EOPNOTSUPP for a datatype refused. The
     * operations a datatype allows are {@link AtomicUpdate#supported}'s.
     */
    protected long atomicLimit(int kind, AtomicDatatype datatype) {
        return -Errno.ENOSYS;
    }

    /**
     * {@link #atomicLimit(int, AtomicDatatype)} for one operation: a provider whose hardware executes only some
     * operations on a datatype (verbs: FI_SUM and FI_CSWAP on 64-bit integers) refuses the others here.
     */
    protected long atomicLimit(int kind, AtomicDatatype datatype, AtomicOp op) {
        return atomicLimit(kind, datatype);
    }

    long refusedTxLevels() {
        return refusedTxLevels;
    }

    @Override
    public final int atomic(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key,
                            AtomicDatatype datatype, AtomicOp op, Object context) {
        return atomics.atomic(buf, desc, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public final int atomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr,
                             long key, AtomicDatatype datatype, AtomicOp op, Object context) {
        return atomics.atomicv(iov, desc, count, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public final int atomicmsg(AtomicMsg msg, long flags) {
        return atomics.atomicmsg(msg, flags);
    }

    @Override
    public final int injectAtomic(MemorySegment buf, long destAddr, long addr, long key, AtomicDatatype datatype,
                                  AtomicOp op) {
        return atomics.injectAtomic(buf, destAddr, addr, key, datatype, op);
    }

    @Override
    public final int fetchAtomic(MemorySegment buf, MemoryRegion desc, MemorySegment result,
                                 MemoryRegion resultDesc, long destAddr, long addr, long key,
                                 AtomicDatatype datatype, AtomicOp op, Object context) {
        return atomics.fetchAtomic(buf, desc, result, resultDesc, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public final int fetchAtomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] resultv,
                                  MemoryRegion[] resultDesc, int resultCount, long destAddr, long addr, long key,
                                  AtomicDatatype datatype, AtomicOp op, Object context) {
        return atomics.fetchAtomicv(iov, desc, count, resultv, resultDesc, resultCount, destAddr, addr, key,
                datatype, op, context);
    }

    @Override
    public final int fetchAtomicmsg(AtomicMsg msg, MemorySegment[] resultv, MemoryRegion[] resultDesc,
                                    int resultCount, long flags) {
        return atomics.fetchAtomicmsg(msg, resultv, resultDesc, resultCount, flags);
    }

    @Override
    public final int compareAtomic(MemorySegment buf, MemoryRegion desc, MemorySegment compare,
                                   MemoryRegion compareDesc, MemorySegment result, MemoryRegion resultDesc,
                                   long destAddr, long addr, long key, AtomicDatatype datatype, AtomicOp op,
                                   Object context) {
        return atomics.compareAtomic(buf, desc, compare, compareDesc, result, resultDesc, destAddr, addr, key,
                datatype, op, context);
    }

    @Override
    public final int compareAtomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] comparev,
                                    MemoryRegion[] compareDesc, int compareCount, MemorySegment[] resultv,
                                    MemoryRegion[] resultDesc, int resultCount, long destAddr, long addr, long key,
                                    AtomicDatatype datatype, AtomicOp op, Object context) {
        return atomics.compareAtomicv(iov, desc, count, comparev, compareDesc, compareCount, resultv, resultDesc,
                resultCount, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public final int compareAtomicmsg(AtomicMsg msg, MemorySegment[] comparev, MemoryRegion[] compareDesc,
                                      int compareCount, MemorySegment[] resultv, MemoryRegion[] resultDesc,
                                      int resultCount, long flags) {
        return atomics.compareAtomicmsg(msg, comparev, compareDesc, compareCount, resultv, resultDesc, resultCount,
                flags);
    }

    @Override
    public final long atomicValid(AtomicDatatype datatype, AtomicOp op) {
        return atomics.valid(AtomicRequest.WRITE, datatype, op);
    }

    @Override
    public final long fetchAtomicValid(AtomicDatatype datatype, AtomicOp op) {
        return atomics.valid(AtomicRequest.FETCH, datatype, op);
    }

    @Override
    public final long compareAtomicValid(AtomicDatatype datatype, AtomicOp op) {
        return atomics.valid(AtomicRequest.COMPARE, datatype, op);
    }
}
