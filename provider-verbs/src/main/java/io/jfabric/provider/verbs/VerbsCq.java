package io.jfabric.provider.verbs;

import io.jfabric.CqAttr;
import io.jfabric.Errno;
import io.jfabric.util.UtilCompletionQueue;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors libfabric's verbs CQ: a util CQ in front of an {@code ibv_cq} with a completion channel
 * ({@link VerbsProgress}). Reads poll the ibv_cq; each work completion is reported, through the queue pair that
 * posted it and its endpoint's bindings, into a slot reserved when the work request was posted: libfabric's
 * verbs CQ credits. An ibv_cq that overflows loses completions for good (the device raises IBV_EVENT_CQ_ERR), so
 * a post that finds every slot filled or reserved gets EAGAIN instead. Blocking reads, and a wait set the CQ joins
 * (FI_WAIT_SET), sleep on the completion channel; a FI_WAIT_FD CQ hands out the channel's fd (fi_control
 * FI_GETWAIT) with libfabric's verbs fi_trywait. Under FI_THREAD_DOMAIN and FI_THREAD_COMPLETION the ring is serialised by the application, without
 * locks; under FI_THREAD_SAFE the domain's {@link VerbsDataLock} serialises its writers.
 */
final class VerbsCq extends UtilCompletionQueue {
    static final int DEFAULT_SIZE = 1024;
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("verbs");

    private final VerbsDomain domain;
    private final CqAttr asked;
    private final VerbsProgress progress;
    private long boundDepth;

    VerbsCq(VerbsDomain domain, CqAttr attr) {
        VerbsDataLock lock = domain.dataLock();
        VerbsProgress p = new VerbsProgress(domain.context(), capacity(domain, attr), lock);
        this.domain = domain;
        this.asked = attr;
        this.progress = p;
        // completions are written under the data lock; FI_THREAD_SAFE readers may be several, beside the writer
        super(sized(attr, capacity(domain, attr)), p, false, lock.concurrent(), DEFAULT_MANUAL_POLL_NANOS,
                !lock.concurrent());
        domain.acquire();
    }

    /** The ibv_cq's size, and so the ring's: the size asked for (or 1024), at most the device's max_cqe. */
    private static int capacity(VerbsDomain domain, CqAttr attr) {
        long want = attr.size > 0 ? attr.size : DEFAULT_SIZE;
        return (int) Math.min(want, domain.device().maxCqe());
    }

    private static CqAttr sized(CqAttr attr, int capacity) {
        CqAttr a = new CqAttr();
        a.size = capacity;
        a.flags = attr.flags;
        a.format = attr.format;
        a.waitObj = attr.waitObj;
        a.waitSet = attr.waitSet;
        return a;
    }

    @Override
    public CqAttr attr() {
        return asked;
    }

    MemorySegment ibvCq() {
        return progress.ibvCq();
    }

    /** The completion channel's fd for a FI_WAIT_FD CQ, as libfabric's verbs answers FI_GETWAIT. */
    @Override
    public int waitFd() {
        return asked.waitObj == io.jfabric.WaitObj.FD && !isClosed() ? progress.fd() : -Errno.ENOSYS;
    }

    /** Arms the ibv_cq before the last look, so that a sleep on {@link #waitFd} cannot miss a completion. */
    @Override
    public boolean trywait() {
        return !isClosed() && !hasEvents() && progress.trywait() && !hasEvents();
    }

    VerbsDomain domain() {
        return domain;
    }

    /** Adds a queue's depth; says once that the bound queues can outgrow this CQ (posts then get EAGAIN). */
    void addDepth(int depth) {
        boundDepth += depth;
        if (boundDepth > capacity()) {
            LOG.log(System.Logger.Level.INFO, "CQ of " + capacity() + " entries now serves queues of "
                    + boundDepth + " work requests: posts beyond " + capacity() + " unread completions get -FI_EAGAIN "
                    + "until the CQ is read. Open the CQ with CqAttr.size >= " + boundDepth + " to avoid that");
        }
    }

    void removeDepth(int depth) {
        boundDepth -= depth;
    }

    /** Reserves the slot of one more work completion, polling once if there is none; false: answer EAGAIN. */
    boolean reserve() {
        if (tryReserve()) {
            return true;
        }
        progress.pollForPost(); // retires unsignaled sends and unreported completions, whose slots come back
        return tryReserve();
    }

    /** Whether {@code p} is this CQ's progress. */
    boolean drivenBy(VerbsProgress p) {
        return progress == p;
    }

    void register(VerbsQp qp) {
        progress.register(qp);
    }

    void unregister(VerbsQp qp) {
        progress.unregister(qp);
    }

    /** Moves the work completions waiting in the ibv_cq into this CQ. */
    void poll() {
        if (!isClosed()) {
            progress.progress();
        }
    }

    @Override
    public String strerror(int status, byte[] errData) {
        // a work completion's error carries its status text as err_data; without it prov_errno is an errno
        return errData != null ? WcStatus.text(status) : Errno.strerror(status);
    }

    @Override
    protected void doClose() {
        super.doClose();
        progress.close();
        domain.release();
    }
}
