package io.jfabric.util;

import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.WaitObj;

import java.util.concurrent.atomic.AtomicLong;

/**
 * libfabric's util counter ({@code prov/util/src/util_cntr.c}, fi_cntr(3)): a success count and an
 * error count that providers bump as operations complete, whether or not a CQ entry is written.
 * {@link #read()} drives manual progress first (as {@code ofi_cntr_read} does); {@link #await} sleeps in a
 * {@link WaitCoordinator} (virtual threads park) and returns 0 once the count reaches the threshold,
 * {@code -ETIMEDOUT} on timeout, {@code -EAVAIL} when the error count changes while waiting, and
 * {@code -ENOSYS} on a FI_WAIT_NONE counter. All methods are thread-safe and allocation-free.
 */
public class UtilCounter extends UtilFabricObject implements Counter, Waitable {
    private final CounterAttr attr;
    private final ProgressHook progress;
    private final AtomicLong value = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final WaitCoordinator waiters;
    /** The wait set this counter joined (FI_WAIT_SET), else null. */
    private final UtilWaitSet waitSet;
    /** Success plus error count when last read or polled: a change since is an event (fi_poll(3), fi_trywait). */
    private volatile long checkpoint;

    public UtilCounter(CounterAttr attr, ProgressHook progress) {
        this(attr, progress, UtilCompletionQueue.DEFAULT_MANUAL_POLL_NANOS);
    }

    public UtilCounter(CounterAttr attr, ProgressHook progress, long manualPollNanos) {
        super("counter");
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "counter attributes are null; pass CounterAttr.defaults()");
        }
        UtilWaitSet set = UtilWaitSet.joinable("counter", attr.waitObj, attr.waitSet);
        this.attr = attr;
        this.progress = progress == null ? ProgressHook.NONE : progress;
        this.waiters = new WaitCoordinator(true, manualPollNanos);
        this.waitSet = set;
        if (set != null) {
            set.join(this);
        }
    }

    public CounterAttr attr() {
        return attr;
    }

    @Override
    public long read() {
        progress.progress();
        long v = value.get();
        checkpoint = v + errors.get();
        return v;
    }

    /** The value without driving progress first (fi_cntr_read does), for a reader on another thread. */
    public long value() {
        return value.get();
    }

    @Override
    public long readError() {
        long e = errors.get();
        checkpoint = value.get() + e;
        return e;
    }

    /** Provider side: one more operation completed. */
    public void increment() {
        value.incrementAndGet();
        wakeIfWaiting();
    }

    /** Provider side: one more operation failed. */
    public void incrementError() {
        errors.incrementAndGet();
        wakeIfWaiting();
    }

    @Override
    public void add(long v) {
        value.addAndGet(v);
        wakeIfWaiting();
    }

    @Override
    public void set(long v) {
        value.set(v);
        wakeIfWaiting();
    }

    @Override
    public void addError(long v) {
        errors.addAndGet(v);
        wakeIfWaiting();
    }

    @Override
    public void setError(long v) {
        errors.set(v);
        wakeIfWaiting();
    }

    @Override
    public int await(long threshold, int timeoutMillis) {
        if (attr.waitObj == WaitObj.NONE) {
            return -Errno.ENOSYS;
        }
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        long errorsAtStart = errors.get();
        for (;;) {
            long epoch = waiters.epoch();
            progress.progress();
            if (value.get() >= threshold) {
                return 0;
            }
            if (errors.get() != errorsAtStart) {
                return -Errno.EAVAIL;
            }
            long remaining = timeoutMillis < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
            if (remaining <= 0) {
                return -Errno.ETIMEDOUT;
            }
            if (isClosed()) {
                return -Errno.EBADF;
            }
            // each waiter has its own threshold, so every change wakes them all to compare
            if (!waiters.await(WaitCoordinator.WOKEN_ONLY, progress, epoch, remaining)) {
                return -Errno.EINTR;
            }
        }
    }

    private void wakeIfWaiting() {
        waiters.wake(progress);
        UtilWaitSet set = waitSet;
        if (set != null) {
            set.memberEvent();
        }
    }

    // ---- Waitable: wait sets, poll sets, trywait --------------------------------------------------

    @Override
    public ProgressHook progressHook() {
        return progress;
    }

    /** Whether the success or error value changed since it was last read or polled. */
    @Override
    public boolean hasEvents() {
        return value.get() + errors.get() != checkpoint;
    }

    @Override
    public boolean takeEvents() {
        long now = value.get() + errors.get();
        if (now == checkpoint) {
            return false;
        }
        checkpoint = now;
        return true;
    }

    @Override
    public WaitObj waitObj() {
        return attr.waitObj;
    }

    @Override
    protected void doClose() {
        waiters.wakeAll(progress);
        if (waitSet != null) {
            waitSet.leave(this);
        }
    }

    @Override
    public String toString() {
        return "UtilCounter[value=" + value.get() + ", errors=" + errors.get() + "]";
    }
}
