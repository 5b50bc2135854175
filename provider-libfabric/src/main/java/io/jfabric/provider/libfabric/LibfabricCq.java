package io.jfabric.provider.libfabric;

import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.provider.libfabric.ffi.DataCalls;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.fi_cq_err_entry;
import io.jfabric.provider.libfabric.ffi.generated.fi_cq_tagged_entry;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_cq;
import io.jfabric.util.UtilWaitSet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Mirrors {@code struct fid_cq} of a native provider. Reads go to the provider's {@code read}
 * function into a preallocated native array of the CQ's format, then each native entry is decoded in
 * place into the caller's {@link CqEntry}: {@code op_context} leads through the domain's
 * {@link ContextSlots} to the Java context (and frees the slot), so nothing is allocated per read.
 * An error completion keeps libfabric's shape: the read returns -EAVAIL, {@link #readError} carries
 * err, prov_errno, olen and a copy of err_data. It is {@link WaitableFid}, so that it joins a jfabric wait set
 * (FI_WAIT_SET) or poll set: {@link WaitMembership} says how.
 */
final class LibfabricCq extends WaitableFid implements CompletionQueue {
    /** Native entries fetched per call; reads of more entries are clipped to this. */
    static final int BATCH = 64;
    private static final long OFF_CONTEXT = fi_cq_tagged_entry.op_context$offset();
    private static final long OFF_FLAGS = fi_cq_tagged_entry.flags$offset();
    private static final long OFF_LEN = fi_cq_tagged_entry.len$offset();
    private static final long OFF_BUF = fi_cq_tagged_entry.buf$offset();
    private static final long OFF_DATA = fi_cq_tagged_entry.data$offset();
    private static final long OFF_TAG = fi_cq_tagged_entry.tag$offset();

    private final CqAttr attr;
    private final CqFormat format;
    private final long entrySize;
    private final ContextSlots slots;
    private final boolean threadSafe;
    private final MemorySegment entries;
    private final MemorySegment srcAddrs;
    private final long entriesAddr;
    private final long srcAddrsAddr;
    /** At FI_THREAD_SAFE, held while the shared native buffers above are in use, and by close. */
    private final SpinGuard guard = new SpinGuard();
    private final MemorySegment errEntry;
    private final MemorySegment strerrBuf;
    /** See {@link #unasked}: set by endpoints' bindings, before the reads that look at them. */
    private volatile boolean receiveBound;
    private volatile boolean selectiveTransmit;
    private MemorySegment readFn;
    private MemorySegment readfromFn;
    private MemorySegment readerrFn;
    private MemorySegment strerrorFn;

    /** @param set the wait set to join (FI_WAIT_SET), or null */
    LibfabricCq(LibfabricDomain domain, MemorySegment fid, CqAttr attr, UtilWaitSet set) {
        super(domain.fabric, fid, attr.waitObj);
        hold(domain);
        this.attr = attr;
        this.format = attr.format == CqFormat.UNSPEC ? CqFormat.CONTEXT : attr.format;
        this.entrySize = switch (format) {
            case CONTEXT -> 8;
            case MSG -> 24;
            case DATA -> 40;
            default -> fi_cq_tagged_entry.sizeof();
        };
        this.slots = domain.slots;
        this.threadSafe = domain.threadSafe;
        this.entries = arena.allocate(fi_cq_tagged_entry.sizeof() * BATCH, 8);
        this.srcAddrs = arena.allocate(ValueLayout.JAVA_LONG, BATCH);
        this.entriesAddr = entries.address();
        this.srcAddrsAddr = srcAddrs.address();
        this.errEntry = fi_cq_err_entry.allocate(arena);
        this.strerrBuf = arena.allocate(256);
        readFn = FabricInline.cqOp(fid, fi_ops_cq.read$offset());
        readfromFn = FabricInline.cqOp(fid, fi_ops_cq.readfrom$offset());
        readerrFn = FabricInline.cqOp(fid, fi_ops_cq.readerr$offset());
        strerrorFn = FabricInline.cqOp(fid, fi_ops_cq.strerror$offset());
        joinWaitSet(set);
    }

    @Override
    String kind() {
        return "completion queue";
    }

    @Override
    public void close() {
        // a read in another thread must not be inside the provider when the CQ goes
        guard.enter();
        try {
            super.close();
        } finally {
            guard.exit();
        }
    }

    @Override
    void closed() {
        // later reads must not reach the provider with a freed fid
        MemorySegment n = MemorySegment.NULL;
        readFn = readfromFn = readerrFn = strerrorFn = n;
    }

    private int missing() {
        return isClosed() ? -Errno.EBADF : -Errno.ENOSYS;
    }

    @Override
    public CqAttr attr() {
        return attr;
    }

    @Override
    public int read(CqEntry[] out, int count) {
        if (threadSafe) {
            guard.enter();
            try {
                return readLocked(out, count, false);
            } finally {
                guard.exit();
            }
        }
        return readLocked(out, count, false);
    }

    @Override
    public int read(CqEntry entry) {
        if (threadSafe) {
            guard.enter();
            try {
                return readOneLocked(entry);
            } finally {
                guard.exit();
            }
        }
        return readOneLocked(entry);
    }

    private int readOneLocked(CqEntry entry) {
        if (readFn.address() == 0) {
            return missing();
        }
        long rc;
        do {
            rc = DataCalls.call(readFn, fidAddr, entriesAddr, 1);
        } while (rc > 0 && unasked(0));
        if (rc > 0) {
            decode(entry, 0, false);
        }
        return (int) rc;
    }

    @Override
    public int readFrom(CqEntry[] out, int count) {
        if (threadSafe) {
            guard.enter();
            try {
                return readLocked(out, count, true);
            } finally {
                guard.exit();
            }
        }
        return readLocked(out, count, true);
    }

    @Override
    public int sread(CqEntry[] out, int count, int timeoutMillis) {
        return blockingRead(out, count, false, timeoutMillis);
    }

    @Override
    public int sreadFrom(CqEntry[] out, int count, int timeoutMillis) {
        return blockingRead(out, count, true, timeoutMillis);
    }

    /** fi_cq_sread as a {@link PollingWait}: native reads until an entry, the timeout or {@link #signal()}. */
    private int blockingRead(CqEntry[] out, int count, boolean from, int timeoutMillis) {
        PollingWait wait = new PollingWait(timeoutMillis);
        Thread me = Thread.currentThread();
        waiter = me;
        try {
            for (;;) {
                int rc;
                if (threadSafe) {
                    guard.enter();
                    try {
                        rc = readLocked(out, count, from);
                    } finally {
                        guard.exit();
                    }
                } else {
                    rc = readLocked(out, count, from);
                }
                if (rc != -Errno.EAGAIN) {
                    return rc;
                }
                if (signalled) {
                    signalled = false;
                    return -Errno.EAGAIN;
                }
                if (!wait.pause(this)) {
                    return -Errno.EAGAIN;
                }
            }
        } finally {
            if (waiter == me) {
                waiter = null;
            }
        }
    }

    private volatile Thread waiter;
    private volatile boolean signalled;

    private int readLocked(CqEntry[] out, int count, boolean from) {
        int n = Math.min(Math.min(count, out.length), BATCH);
        if (n < 0) {
            return -Errno.EINVAL;
        }
        MemorySegment fn = from ? readfromFn : readFn;
        if (fn.address() == 0) {
            return missing();
        }
        for (;;) {
            long rc = from ? DataCalls.call(fn, fidAddr, entriesAddr, n, srcAddrsAddr)
                    : DataCalls.call(fn, fidAddr, entriesAddr, n);
            if (rc <= 0) {
                return (int) rc;
            }
            int kept = 0;
            for (int i = 0; i < rc; i++) {
                if (!unasked(i)) {
                    decode(out[kept++], i, from);
                }
            }
            if (kept > 0) {
                return kept;
            }
            if (rc < n) {
                // the native queue is drained, and it held only entries the application never asked for
                return -Errno.EAGAIN;
            }
        }
    }

    /**
     * Whether native entry {@code i} is a success completion of a transmit that asked for none. On a queue bound for
     * transmits with FI_SELECTIVE_COMPLETION the bridge posts such a transmit with a NULL context (TxReporting) and
     * every other operation with a context slot, so a NULL {@code op_context} on a transmit's entry there can only be
     * one libfabric wrote against fi_endpoint(3) ("operations that take flags as input override the op_flags"):
     * 1.17's tcp ORs the endpoint's default FI_COMPLETION into fi_sendmsg's flags, so fi_sendmsg(FI_INJECT | FI_MORE)
     * still completes. Passed on, such entries are counted as the application's own sends (jfabric bw --rate --more
     * then waited on completions queued behind them until every context slot was taken). NULL-context entries of
     * the target side (FI_REMOTE_CQ_DATA, FI_RMA_EVENT) are the application's and stay; a FI_CQ_FORMAT_CONTEXT entry
     * carries no flags, so there only a queue that no endpoint bound for FI_RECV drops them. Without a selective
     * binding every transmit has a slot, and a NULL context is a provider's lost context (rxd's), reported as such.
     */
    private boolean unasked(int i) {
        long base = i * entrySize;
        if (entries.get(ValueLayout.JAVA_LONG, base + OFF_CONTEXT) != 0 || !selectiveTransmit) {
            return false;
        }
        if (format == CqFormat.CONTEXT) {
            return !receiveBound;
        }
        long flags = entries.get(ValueLayout.JAVA_LONG, base + OFF_FLAGS);
        return (flags & (OpFlags.SEND | OpFlags.READ | OpFlags.WRITE)) != 0
                && (flags & (OpFlags.RECV | OpFlags.REMOTE_READ | OpFlags.REMOTE_WRITE)) == 0;
    }

    /** An endpoint bound this queue with {@code flags} (control path); see {@link #unasked}. */
    void bound(long flags) {
        if ((flags & BindFlags.RECV) != 0) {
            receiveBound = true;
        }
        if ((flags & BindFlags.TRANSMIT) != 0 && (flags & BindFlags.SELECTIVE_COMPLETION) != 0) {
            selectiveTransmit = true;
        }
    }

    /** Native entry {@code i} into {@code e}, in the CQ's format; the operation's slot is freed. */
    private void decode(CqEntry e, int i, boolean from) {
        long base = i * entrySize;
        long ctx = entries.get(ValueLayout.JAVA_LONG, base + OFF_CONTEXT);
        long flags = format == CqFormat.CONTEXT ? 0 : entries.get(ValueLayout.JAVA_LONG, base + OFF_FLAGS);
        // a multi-receive buffer's context stays in use until the completion that releases the buffer
        boolean lastUse = format == CqFormat.CONTEXT || (flags & OpFlags.MULTI_RECV) != 0;
        e.context = slots.complete(ctx, lastUse);
        e.flags = flags;
        e.len = format == CqFormat.CONTEXT ? 0 : entries.get(ValueLayout.JAVA_LONG, base + OFF_LEN);
        boolean data = format == CqFormat.DATA || format == CqFormat.TAGGED;
        e.buf = data ? entries.get(ValueLayout.JAVA_LONG, base + OFF_BUF) : 0;
        e.data = data ? entries.get(ValueLayout.JAVA_LONG, base + OFF_DATA) : 0;
        e.tag = format == CqFormat.TAGGED ? entries.get(ValueLayout.JAVA_LONG, base + OFF_TAG) : 0;
        e.srcAddr = from ? srcAddrs.getAtIndex(ValueLayout.JAVA_LONG, i) : io.jfabric.Fabrics.ADDR_NOTAVAIL;
    }

    @Override
    public int readError(CqErrEntry e, long flags) {
        if (threadSafe) {
            guard.enter();
            try {
                return readErrorLocked(e, flags);
            } finally {
                guard.exit();
            }
        }
        return readErrorLocked(e, flags);
    }

    private int readErrorLocked(CqErrEntry e, long flags) {
        if (readerrFn.address() == 0) {
            return missing();
        }
        errEntry.fill((byte) 0);
        long rc = fi_ops_cq.readerr.invoke(readerrFn, fid, errEntry, flags);
        if (rc <= 0) {
            return (int) rc;
        }
        long ctx = fi_cq_err_entry.op_context(errEntry).address();
        long f = fi_cq_err_entry.flags(errEntry);
        // an error ends the operation, a multi-receive buffer's and a FI_PEEK|FI_CLAIM that found nothing included
        e.context = slots.fail(ctx);
        e.flags = f;
        e.len = fi_cq_err_entry.len(errEntry);
        e.buf = fi_cq_err_entry.buf(errEntry).address();
        e.data = fi_cq_err_entry.data(errEntry);
        e.tag = fi_cq_err_entry.tag(errEntry);
        e.olen = fi_cq_err_entry.olen(errEntry);
        // fi_cq(3) makes err positive; libfabric 1.17's shm stores it negated, so normalise
        e.err = Math.abs(fi_cq_err_entry.err(errEntry));
        e.provErrno = fi_cq_err_entry.prov_errno(errEntry);
        long size = fi_cq_err_entry.err_data_size(errEntry);
        MemorySegment data = fi_cq_err_entry.err_data(errEntry);
        e.errData = size > 0 && data.address() != 0 ? data.reinterpret(size).toArray(ValueLayout.JAVA_BYTE) : null;
        e.srcAddr = io.jfabric.Fabrics.ADDR_NOTAVAIL;
        return 1;
    }

    @Override
    public void signal() {
        checkOpen();
        // wakes the Java-side sread (see blockingRead)
        signalled = true;
        Thread w = waiter;
        if (w != null) {
            java.util.concurrent.locks.LockSupport.unpark(w);
        }
    }

    @Override
    public String strerror(int provErrno, byte[] errData) {
        if (strerrorFn.address() != 0) {
            synchronized (strerrBuf) {
                MemorySegment s = fi_ops_cq.strerror.invoke(strerrorFn, fid, provErrno, MemorySegment.NULL, strerrBuf,
                        strerrBuf.byteSize());
                String text = InfoMapper.string(s);
                if (text != null && !text.isEmpty()) {
                    return text;
                }
            }
        }
        return ReturnCodes.strerror(provErrno);
    }

    // ---- Waitable: wait sets, poll sets, trywait --------------------------------------------------

    /**
     * A native read of no entries: libfabric's util CQs (those of tcp, rxm, shm and rxd in 1.17) drive progress
     * and answer 0, or -FI_EAVAIL for an error entry, when something waits, and -FI_EAGAIN when nothing does. Under
     * the guard at every threading level: a wait set's waiters peek from their own threads.
     */
    @Override
    boolean peek() {
        guard.enter();
        try {
            MemorySegment fn = readFn;
            if (fn.address() == 0) {
                return false;
            }
            long rc = DataCalls.call(fn, fidAddr, entriesAddr, 0);
            return rc >= 0 || rc == -Errno.EAVAIL;
        } finally {
            guard.exit();
        }
    }

    /** Free context slots of the domain; for tests and state dumps. */
    int freeSlots() {
        return slots.free();
    }
}
