package io.jfabric.provider.libfabric;

import io.jfabric.Counter;
import io.jfabric.Errno;
import io.jfabric.WaitObj;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_cntr;
import io.jfabric.util.UtilWaitSet;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fid_cntr} of a native provider; every call is the ops-table function. It is {@link WaitableFid}
 * for jfabric's wait sets and poll sets: a change of the success or error count since it was last read or polled is
 * an event (fi_poll(3)), as for util's counter.
 */
final class LibfabricCounter extends WaitableFid implements Counter {
    private final MemorySegment readFn;
    private final MemorySegment readerrFn;
    private final MemorySegment addFn;
    private final MemorySegment setFn;
    private final MemorySegment adderrFn;
    private final MemorySegment seterrFn;
    /** Success plus error count when last read or polled. */
    private volatile long checkpoint;

    /** @param set the wait set to join (FI_WAIT_SET), or null */
    LibfabricCounter(LibfabricDomain domain, MemorySegment fid, WaitObj waitObj, UtilWaitSet set) {
        super(domain.fabric, fid, waitObj);
        hold(domain);
        readFn = FabricInline.cntrOp(fid, fi_ops_cntr.read$offset());
        readerrFn = FabricInline.cntrOp(fid, fi_ops_cntr.readerr$offset());
        addFn = FabricInline.cntrOp(fid, fi_ops_cntr.add$offset());
        setFn = FabricInline.cntrOp(fid, fi_ops_cntr.set$offset());
        adderrFn = FabricInline.cntrOp(fid, fi_ops_cntr.adderr$offset());
        seterrFn = FabricInline.cntrOp(fid, fi_ops_cntr.seterr$offset());
        joinWaitSet(set);
    }

    @Override
    String kind() {
        return "counter";
    }

    private static MemorySegment need(MemorySegment fn, String what) {
        if (fn.address() == 0) {
            throw ReturnCodes.failure(-Errno.ENOSYS, what, "this native provider's counters lack it");
        }
        return fn;
    }

    @Override
    public long read() {
        checkOpen();
        long v = fi_ops_cntr.read.invoke(need(readFn, "fi_cntr_read"), fid);
        checkpoint = v + errorsOrZero();
        return v;
    }

    private long errorsOrZero() {
        return readerrFn.address() == 0 ? 0 : fi_ops_cntr.readerr.invoke(readerrFn, fid);
    }

    // ---- Waitable: wait sets, poll sets, trywait --------------------------------------------------

    /** The count now, read natively (fi_cntr_read drives util's progress), or the checkpoint once closed. */
    private synchronized long count() {
        if (isClosed() || readFn.address() == 0) {
            return checkpoint;
        }
        return fi_ops_cntr.read.invoke(readFn, fid) + errorsOrZero();
    }

    @Override
    boolean peek() {
        return count() != checkpoint;
    }

    @Override
    public boolean takeEvents() {
        long now = count();
        if (now == checkpoint) {
            return false;
        }
        checkpoint = now;
        return true;
    }

    @Override
    public long readError() {
        checkOpen();
        return fi_ops_cntr.readerr.invoke(need(readerrFn, "fi_cntr_readerr"), fid);
    }

    @Override
    public void add(long value) {
        checkOpen();
        ReturnCodes.check(fi_ops_cntr.add.invoke(need(addFn, "fi_cntr_add"), fid, value), "fi_cntr_add", "");
    }

    @Override
    public void set(long value) {
        checkOpen();
        ReturnCodes.check(fi_ops_cntr.set.invoke(need(setFn, "fi_cntr_set"), fid, value), "fi_cntr_set", "");
    }

    @Override
    public void addError(long value) {
        checkOpen();
        ReturnCodes.check(fi_ops_cntr.adderr.invoke(need(adderrFn, "fi_cntr_adderr"), fid, value), "fi_cntr_adderr", "");
    }

    @Override
    public void setError(long value) {
        checkOpen();
        ReturnCodes.check(fi_ops_cntr.seterr.invoke(need(seterrFn, "fi_cntr_seterr"), fid, value), "fi_cntr_seterr", "");
    }

    /**
     * fi_cntr_wait as a {@link PollingWait}: fi_cntr_read, which drives the provider's progress, until the
     * threshold, a change of the error count, or the timeout. libfabric 1.17's own fi_cntr_wait segfaults on the
     * tcp, udp and sockets counters and never times out on shm's.
     */
    @Override
    public int await(long threshold, int timeoutMillis) {
        if (isClosed()) {
            return -Errno.EBADF;
        }
        if (waitObj() == WaitObj.NONE) {
            // fi_cntr(3): waiting is invalid without a wait object; jfabric's own counters say ENOSYS too
            return -Errno.ENOSYS;
        }
        if (readFn.address() == 0 || readerrFn.address() == 0) {
            return -Errno.ENOSYS;
        }
        PollingWait wait = new PollingWait(timeoutMillis);
        long errorsAtStart = readError();
        for (;;) {
            if (Long.compareUnsigned(read(), threshold) >= 0) {
                return 0;
            }
            if (readError() != errorsAtStart) {
                return -Errno.EAVAIL;
            }
            if (!wait.pause(this)) {
                return -Errno.ETIMEDOUT;
            }
            if (isClosed()) {
                return -Errno.EBADF;
            }
        }
    }
}
