package io.jfabric.provider.verbs;

import io.jfabric.FabricException;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.generated.ibv_comp_channel;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.generated.ibv_context_ops;
import io.jfabric.provider.verbs.ffi.generated.ibv_wc;
import io.jfabric.provider.verbs.ffi.fd_h;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.FdPoll;
import io.jfabric.util.ProgressHook;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A verbs CQ's progress: the {@code ibv_cq} with its completion channel. {@link #progress()} polls the ibv_cq in
 * batches into a preallocated {@code ibv_wc} array and hands each work completion to the queue pair that posted
 * it, which reports it through its endpoint's bindings into the util CQ (every WR holds a slot there, reserved at
 * post, so polling never needs room). {@link #block} arms the CQ ({@code ibv_req_notify_cq}) and sleeps on the
 * channel's fd, made non-blocking, in util's {@link FdPoll}, whose eventfd {@link #wakeup} writes (fi_cq_signal, a
 * wait set's wakeup, an interrupt). poll(2) is a native call: util's WaitCoordinator hands a virtual thread's sleep to
 * a platform thread ({@link #blockParksVirtualThreads} is false). {@link #trywait} is libfabric's verbs
 * fi_trywait, for FI_WAIT_FD users who sleep on {@link #fd} themselves. Polling takes the domain's
 * {@link VerbsDataLock} (a no-op below FI_THREAD_SAFE).
 */
final class VerbsProgress implements ProgressHook {
    private static final int BATCH = 32;
    /** Bounds one sleep; signal(), a wakeup and close end it at once through the eventfd. */
    private static final int SLEEP_SLICE_MS = 100;
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("verbs");

    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
    private final MemorySegment channel;
    private final MemorySegment cq;
    private final MemorySegment pollCqFn;
    private final MemorySegment reqNotifyFn;
    private final MemorySegment wcs;
    /** The channel's fd with the eventfd that ends a sleep on it. */
    private final FdPoll channelPoll;
    private final MemorySegment cqOut;
    private final MemorySegment ctxOut;
    /** Taken around polling and the queue-pair table: posts change the same queue pairs' rings. */
    private final VerbsDataLock lock;
    /** One sleeper on the channel at a time: a second ibv_get_cq_event would block until a later event. */
    private final ReentrantLock sleeper = new ReentrantLock();

    /** {@link VerbsParams#KEEPALIVE_INTERVAL} in nanoseconds, or 0. */
    private final long keepaliveNanos;
    private long nextKeepalive;
    private VerbsQp[] qps = new VerbsQp[4];
    private int qpCount;
    private VerbsQp lastQp;
    private boolean armed;
    private volatile boolean closed;

    /** Creates an ibv_cq of {@code capacity} entries with its completion channel on {@code context}. */
    VerbsProgress(MemorySegment context, int capacity, VerbsDataLock lock) {
        this.lock = lock;
        keepaliveNanos = Math.max(0, VerbsParams.KEEPALIVE_INTERVAL.get()) * 1_000_000L;
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
        int fd = ibv_comp_channel.fd(channel);
        // FI_WAIT_FD users poll the fd themselves; ibv_get_cq_event must then never block (libfabric's verbs too)
        fd_h.fcntl(fd, fd_h.F_SETFL, fd_h.fcntl(fd, fd_h.F_GETFL, 0) | fd_h.O_NONBLOCK);
        channelPoll = new FdPoll(fd);
        cqOut = arena.allocate(ValueLayout.ADDRESS);
        ctxOut = arena.allocate(ValueLayout.ADDRESS);
    }

    MemorySegment ibvCq() {
        return cq;
    }

    /** The completion channel's fd (non-blocking): fi_control(FI_GETWAIT) of a FI_WAIT_FD CQ. */
    int fd() {
        return channelPoll.fd();
    }

    void register(VerbsQp qp) {
        lock.lock();
        try {
            add(qp);
        } finally {
            lock.unlock();
        }
    }

    private void add(VerbsQp qp) {
        for (int i = 0; i < qpCount; i++) {
            if (qps[i] == qp) {
                return;
            }
        }
        if (qpCount == qps.length) {
            qps = Arrays.copyOf(qps, qpCount * 2);
        }
        qps[qpCount++] = qp;
    }

    void unregister(VerbsQp qp) {
        lock.lock();
        try {
            remove(qp);
        } finally {
            lock.unlock();
        }
    }

    private void remove(VerbsQp qp) {
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

    /**
     * Hands every work completion waiting in the ibv_cq to its queue pair; returns how many there were. A reader's
     * idle poll also lets the queue pairs probe their connections ({@link #keepalive}).
     */
    @Override
    public int progress() {
        lock.lock();
        try {
            int n = poll();
            if (n == 0 && keepaliveNanos != 0) {
                keepalive();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link #progress} without the probes, for a post that needs a completion slot: it runs between the post's
     * fill of the queue pair's work request and its ibv_post_send, where a probe would post over that fill.
     */
    int pollForPost() {
        lock.lock();
        try {
            return poll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * On an idle poll, at most once per interval: each queue pair whose send CQ this is probes its connection if its
     * own interval passed (from the send CQ only: a receive CQ's reader may be another completion context).
     */
    private void keepalive() {
        long now = System.nanoTime();
        if (now - nextKeepalive < 0) {
            return;
        }
        nextKeepalive = now + keepaliveNanos;
        for (int i = 0; i < qpCount; i++) {
            qps[i].keepalive(this, now, keepaliveNanos);
        }
    }

    private int poll() {
        int total = 0;
        while (!closed) {
            int n = verbs_h.ibv_poll_cq(pollCqFn, cq.address(), BATCH, wcs.address());
            if (n <= 0) {
                return total;
            }
            for (int i = 0; i < n; i++) {
                MemorySegment wc = ibv_wc.asSlice(wcs, i);
                VerbsQp qp = qpOf(ibv_wc.qp_num(wc));
                if (qp != null) {
                    qp.completed(wc);
                }
            }
            total += n;
            if (n < BATCH) {
                return total;
            }
        }
        return total;
    }

    /**
     * Arms the CQ and returns at once when it is not armed (the reader then polls again: a completion that
     * arrived before arming raises no event); otherwise sleeps on the channel's fd for one slice at most.
     */
    @Override
    public void block(long nanos) {
        if (closed) {
            return;
        }
        if (!sleeper.tryLock()) {
            // another FI_THREAD_SAFE reader sleeps on the channel: wait one slice, then poll again
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(nanos, SLEEP_SLICE_MS * 1_000_000L));
            return;
        }
        try {
            sleep(nanos);
        } finally {
            sleeper.unlock();
        }
    }

    private void sleep(long nanos) {
        if (!armed) {
            int rc = verbs_h.ibv_req_notify_cq(reqNotifyFn, cq, 0);
            if (rc != 0) {
                LOG.log(System.Logger.Level.WARNING, "ibv_req_notify_cq failed: " + Native.strerror(rc)
                        + "; sread polls instead of sleeping");
                java.util.concurrent.locks.LockSupport.parkNanos(Math.min(nanos, SLEEP_SLICE_MS * 1_000_000L));
                return;
            }
            armed = true;
            return;
        }
        int millis = (int) Math.max(1, Math.min(nanos / 1_000_000L, SLEEP_SLICE_MS));
        if (channelPoll.poll(millis)) {
            ackEvents();
        }
    }

    /** Takes every event off the non-blocking channel and acks them; the CQ is then no longer armed. */
    private void ackEvents() {
        int n = 0;
        while (verbs_h.ibv_get_cq_event(channel, cqOut, ctxOut) == 0) {
            n++;
        }
        if (n > 0) {
            verbs_h.ibv_ack_cq_events(cq, n);
            armed = false;
        }
    }

    /**
     * libfabric's verbs fi_trywait: acks the channel's events, arms the CQ and polls it once more, so that a
     * completion that came before the arming is not slept through. False when something is to be read (EAGAIN).
     */
    boolean trywait() {
        if (closed) {
            return false;
        }
        sleeper.lock();
        try {
            ackEvents();
            if (!armed) {
                if (verbs_h.ibv_req_notify_cq(reqNotifyFn, cq, 0) != 0) {
                    return false; // cannot arm: the caller polls instead of sleeping
                }
                armed = true;
            }
        } finally {
            sleeper.unlock();
        }
        return progress() == 0;
    }

    /** Ends a sleep in {@link #block}, now or the next one to start, through the eventfd. */
    @Override
    public void wakeup() {
        channelPoll.wakeup();
    }

    /** sread sleeps in {@link #block}, on the channel, rather than parking between polls. */
    @Override
    public boolean canBlock() {
        return true;
    }

    /** Destroys the ibv_cq and its channel (the CQ's close, once no endpoint holds it). */
    void close() {
        closed = true;
        channelPoll.close(); // before the channel goes: no sleep may poll its fd after
        Native.checkVerbs(verbs_h.ibv_destroy_cq(cq), "ibv_destroy_cq");
        verbs_h.ibv_destroy_comp_channel(channel);
        arena.close();
    }
}
