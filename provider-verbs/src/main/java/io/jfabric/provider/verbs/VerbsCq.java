package io.jfabric.provider.verbs;

import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.generated.ibv_comp_channel;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.generated.ibv_context_ops;
import io.jfabric.provider.verbs.ffi.generated.ibv_wc;
import io.jfabric.provider.verbs.ffi.poll_h;
import io.jfabric.provider.verbs.ffi.generated.pollfd;
import io.jfabric.provider.verbs.ffi.verbs_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import io.jfabric.util.UtilFabricObject;

/**
 * Mirrors libfabric's verbs CQ: an {@code ibv_cq} with a completion channel. Reads poll the ibv_cq in
 * batches into a preallocated {@code ibv_wc} array and translate each work completion, through the
 * queue pair that posted it, into a slot of a preallocated ring; nothing is allocated per completion
 * except on the error path. Blocking reads arm the CQ ({@code ibv_req_notify_cq}) and sleep in
 * poll(2) on the channel's fd. Threading is the domain's (FI_THREAD_DOMAIN): no locks.
 */
final class VerbsCq extends UtilFabricObject implements CompletionQueue {
    static final int DEFAULT_SIZE = 1024;
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("verbs");
    private static final int BATCH = 32;
    private static final int SLEEP_SLICE_MS = 100;

    private final VerbsDomain domain;
    private final CqAttr attr;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
    private final MemorySegment channel;
    private final MemorySegment cq;
    private final MemorySegment pollCqFn;
    private final MemorySegment reqNotifyFn;
    private final MemorySegment wcs;
    private final MemorySegment pollFd;
    private final MemorySegment cqOut;
    private final MemorySegment ctxOut;

    // the ring of translated completions, oldest at head
    private final int capacity;
    private final Object[] ctx;
    private final long[] flags;
    private final long[] len;
    private final long[] data;
    private final int[] err;
    private final int[] provErrno;
    /** Whether the entry's prov_errno is an ibv_wc_status (its text becomes err_data) rather than an errno. */
    private final boolean[] wcStatus;
    private int head;
    private int count;

    private VerbsQp[] qps = new VerbsQp[4];
    private int qpCount;
    private VerbsQp lastQp;
    private boolean armed;
    private volatile boolean signaled;

    VerbsCq(VerbsDomain domain, CqAttr attr) {
        super("verbs CQ");
        this.domain = domain;
        this.attr = attr;
        capacity = attr.size > 0 ? (int) Math.min(attr.size, domain.device().maxCqe()) : Math.min(DEFAULT_SIZE,
                domain.device().maxCqe());
        ctx = new Object[capacity];
        flags = new long[capacity];
        len = new long[capacity];
        data = new long[capacity];
        err = new int[capacity];
        provErrno = new int[capacity];
        wcStatus = new boolean[capacity];
        MemorySegment context = domain.context();
        channel = ibv_comp_channel.reinterpret(Native.checkPtr(verbs_h.ibv_create_comp_channel(errno, context), errno,
                "ibv_create_comp_channel"));
        MemorySegment c;
        try {
            c = Native.checkPtr(verbs_h.ibv_create_cq(errno, context, capacity, MemorySegment.NULL, channel, 0), errno,
                    "ibv_create_cq with " + capacity + " entries");
        } catch (FabricException e) {
            verbs_h.ibv_destroy_comp_channel(channel);
            arena.close();
            throw e;
        }
        cq = c;
        // the ops table is read once: the function pointers do not change for the context's lifetime
        MemorySegment ops = ibv_context.ops(context);
        pollCqFn = ibv_context_ops.poll_cq(ops);
        reqNotifyFn = ibv_context_ops.req_notify_cq(ops);
        wcs = ibv_wc.allocateArray(BATCH, arena);
        pollFd = pollfd.allocate(arena);
        pollfd.fd(pollFd, ibv_comp_channel.fd(channel));
        pollfd.events(pollFd, (short) poll_h.POLLIN);
        cqOut = arena.allocate(ValueLayout.ADDRESS);
        ctxOut = arena.allocate(ValueLayout.ADDRESS);
        domain.acquire();
    }

    MemorySegment ibvCq() {
        return cq;
    }

    VerbsDomain domain() {
        return domain;
    }

    private long boundDepth;
    /**
     * Work requests posted to the QPs bound here and not yet retired. Each can still put one work completion
     * in the ibv_cq (a flushed unsignaled send too), and an ibv_cq that overflows loses completions for good
     * (the device raises IBV_EVENT_CQ_ERR), so a post that would take this past {@link #capacity} is refused
     * with EAGAIN instead, as libfabric's verbs counts CQ credits.
     */
    private int credits;

    /** Adds a queue's depth; says once that the bound queues can outgrow this CQ (posts then get EAGAIN). */
    void addDepth(int depth) {
        boundDepth += depth;
        if (boundDepth > capacity) {
            LOG.log(System.Logger.Level.INFO, "CQ of " + capacity + " entries now serves queues of "
                    + boundDepth + " work requests: posts beyond " + capacity + " unread completions get -FI_EAGAIN "
                    + "until the CQ is read. Open the CQ with CqAttr.size >= " + boundDepth + " to avoid that");
        }
    }

    /** Takes room for one more work completion, polling once if there is none; false: answer EAGAIN. */
    boolean takeCredit() {
        if (credits >= capacity) {
            progress();
            if (credits >= capacity) {
                return false;
            }
        }
        credits++;
        return true;
    }

    /** A work request was retired (its completion polled, or synthesized), or its post failed. */
    void returnCredit() {
        credits--;
    }

    void removeDepth(int depth) {
        boundDepth -= depth;
    }

    void register(VerbsQp qp) {
        for (int i = 0; i < qpCount; i++) {
            if (qps[i] == qp) {
                return;
            }
        }
        if (qpCount == qps.length) {
            qps = java.util.Arrays.copyOf(qps, qpCount * 2);
        }
        qps[qpCount++] = qp;
    }

    void unregister(VerbsQp qp) {
        for (int i = 0; i < qpCount; i++) {
            if (qps[i] == qp) {
                qps[i] = qps[--qpCount];
                qps[qpCount] = null;
                break;
            }
        }
        if (lastQp == qp) {
            lastQp = null;
        }
    }

    private VerbsQp qpOf(int qpNum) {
        VerbsQp last = lastQp;
        if (last != null && last.qpNum() == qpNum) {
            return last;
        }
        for (int i = 0; i < qpCount; i++) {
            if (qps[i].qpNum() == qpNum) {
                lastQp = qps[i];
                return qps[i];
            }
        }
        return null;
    }

    /** Moves work completions from the ibv_cq into the ring, as far as the ring has room. */
    void progress() {
        while (!isClosed()) {
            int room = capacity - count;
            if (room == 0) {
                return;
            }
            int want = Math.min(BATCH, room);
            int n = verbs_h.ibv_poll_cq(pollCqFn, cq.address(), want, wcs.address());
            if (n <= 0) {
                return;
            }
            for (int i = 0; i < n; i++) {
                MemorySegment wc = ibv_wc.asSlice(wcs, i);
                VerbsQp qp = qpOf(ibv_wc.qp_num(wc));
                if (qp != null) {
                    qp.completed(wc, this);
                }
            }
            if (n < want) {
                return;
            }
        }
    }

    /** Room left in the ring (qps synthesizing completions on close check it). */
    int room() {
        return capacity - count;
    }

    void push(Object context, long opFlags, long length, long cqData) {
        int i = (head + count) % capacity;
        ctx[i] = context;
        flags[i] = opFlags;
        len[i] = length;
        data[i] = cqData;
        err[i] = 0;
        provErrno[i] = 0;
        count++;
    }

    /** A work completion that failed: prov_errno is its ibv_wc_status. */
    void pushWcError(Object context, long opFlags, long length, int errnum, int status) {
        pushError(context, opFlags, length, errnum, status, true);
    }

    /** An operation that failed without a work completion (cancelled on close): prov_errno is the errno. */
    void pushErrnoError(Object context, long opFlags, long length, int errnum) {
        pushError(context, opFlags, length, errnum, errnum, false);
    }

    private void pushError(Object context, long opFlags, long length, int errnum, int prov, boolean isWcStatus) {
        int i = (head + count) % capacity;
        ctx[i] = context;
        flags[i] = opFlags;
        len[i] = length;
        data[i] = 0;
        err[i] = errnum;
        provErrno[i] = prov;
        wcStatus[i] = isWcStatus;
        count++;
    }

    @Override
    public CqAttr attr() {
        return attr;
    }

    @Override
    public int read(CqEntry[] entries, int n) {
        progress();
        int got = 0;
        while (got < n && count > 0 && err[head] == 0) {
            entries[got++].set(ctx[head], flags[head], len[head], 0, data[head], 0);
            ctx[head] = null;
            head = (head + 1) % capacity;
            count--;
        }
        if (got > 0) {
            return got;
        }
        return count > 0 ? -Errno.EAVAIL : -Errno.EAGAIN;
    }

    @Override
    public int read(CqEntry entry) {
        progress();
        if (count == 0) {
            return -Errno.EAGAIN;
        }
        if (err[head] != 0) {
            return -Errno.EAVAIL;
        }
        entry.set(ctx[head], flags[head], len[head], 0, data[head], 0);
        ctx[head] = null;
        head = (head + 1) % capacity;
        count--;
        return 1;
    }

    @Override
    public int readFrom(CqEntry[] entries, int n) {
        int r = read(entries, n);
        for (int i = 0; i < r; i++) {
            entries[i].srcAddr = io.jfabric.Fabrics.ADDR_NOTAVAIL; // connected qps have no fi_addr
        }
        return r;
    }

    @Override
    public int readError(CqErrEntry entry, long readFlags) {
        progress();
        if (count == 0 || err[head] == 0) {
            return -Errno.EAGAIN;
        }
        entry.setError(ctx[head], flags[head], len[head], 0, err[head], provErrno[head]);
        entry.errData = wcStatus[head] ? WcStatus.text(provErrno[head]).getBytes(StandardCharsets.UTF_8) : null;
        ctx[head] = null;
        head = (head + 1) % capacity;
        count--;
        return 1;
    }

    @Override
    public int sread(CqEntry[] entries, int n, int timeoutMillis) {
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            int r = read(entries, n);
            if (r != -Errno.EAGAIN) {
                return r;
            }
            if (signaled) {
                signaled = false;
                return -Errno.EAGAIN;
            }
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0 || isClosed()) {
                return -Errno.EAGAIN;
            }
            if (!armed) {
                // arm, then look again: a completion that arrived before arming raises no event
                int rc = verbs_h.ibv_req_notify_cq(reqNotifyFn, cq, 0);
                if (rc != 0) {
                    return -rc;
                }
                armed = true;
                continue;
            }
            pollfd.revents(pollFd, (short) 0);
            int ready = poll_h.poll(errno, pollFd, 1, (int) Math.min(left, SLEEP_SLICE_MS));
            if (ready > 0 && (pollfd.revents(pollFd) & poll_h.POLLIN) != 0
                    && verbs_h.ibv_get_cq_event(channel, cqOut, ctxOut) == 0) {
                verbs_h.ibv_ack_cq_events(cq, 1);
                armed = false;
            }
        }
    }

    @Override
    public int sreadFrom(CqEntry[] entries, int n, int timeoutMillis) {
        int r = sread(entries, n, timeoutMillis);
        for (int i = 0; i < r; i++) {
            entries[i].srcAddr = io.jfabric.Fabrics.ADDR_NOTAVAIL;
        }
        return r;
    }

    @Override
    public void signal() {
        signaled = true;
    }

    @Override
    public String strerror(int status, byte[] errData) {
        // readError gives a work completion's status text as err_data; without it prov_errno is an errno
        return errData != null ? WcStatus.text(status) : Errno.strerror(status);
    }

    @Override
    protected void doClose() {
        Native.checkVerbs(verbs_h.ibv_destroy_cq(cq), "ibv_destroy_cq");
        verbs_h.ibv_destroy_comp_channel(channel);
        domain.release();
        arena.close();
    }
}
