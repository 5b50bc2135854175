package io.jfabric.util;

import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.WaitObj;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * libfabric's util counter ({@code prov/util/src/util_cntr.c}, fi_cntr(3)): a success count and an
 * error count that providers bump as operations complete, whether or not a CQ entry is written.
 * {@link #read()} drives manual progress first (as {@code ofi_cntr_read} does); {@link #await} sleeps
 * (Condition, or the hook's own blocking wait) and returns 0 once the count reaches the threshold,
 * {@code -ETIMEDOUT} on timeout, {@code -EAVAIL} when the error count changes while waiting, and
 * {@code -ENOSYS} on a FI_WAIT_NONE counter. All methods are thread-safe and allocation-free.
 */
public class UtilCounter extends UtilFabricObject implements Counter {
    private final CounterAttr attr;
    private final ProgressHook progress;
    private final AtomicLong value = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition changed = waitLock.newCondition();
    private final AtomicInteger sleepers = new AtomicInteger();
    private final long manualPollNanos;

    public UtilCounter(CounterAttr attr, ProgressHook progress) {
        this(attr, progress, UtilCompletionQueue.DEFAULT_MANUAL_POLL_NANOS);
    }

    public UtilCounter(CounterAttr attr, ProgressHook progress, long manualPollNanos) {
        super("counter");
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "counter attributes are null; pass CounterAttr.defaults()");
        }
        if (attr.waitObj == WaitObj.SET || attr.waitObj == WaitObj.POLLFD) {
            throw new FabricException(Errno.ENOSYS, "counter wait object " + attr.waitObj.cName()
                    + " is not supported; use FI_WAIT_UNSPEC, FI_WAIT_NONE, FI_WAIT_MUTEX_COND or FI_WAIT_YIELD");
        }
        this.attr = attr;
        this.progress = progress == null ? ProgressHook.NONE : progress;
        this.manualPollNanos = manualPollNanos;
    }

    public CounterAttr attr() {
        return attr;
    }

    @Override
    public long read() {
        progress.progress();
        return value.get();
    }

    /** The value without driving progress first (fi_cntr_read does), for a reader on another thread. */
    public long value() {
        return value.get();
    }

    @Override
    public long readError() {
        return errors.get();
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
        boolean manual = progress != ProgressHook.NONE;
        for (;;) {
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
            if (manual && progress.canBlock()) {
                sleepers.incrementAndGet();
                try {
                    if (value.get() < threshold && errors.get() == errorsAtStart) {
                        progress.block(remaining);
                    }
                } finally {
                    sleepers.decrementAndGet();
                }
                if (Thread.currentThread().isInterrupted()) {
                    return -Errno.EINTR;
                }
                continue;
            }
            long slice = manual ? Math.min(remaining, manualPollNanos) : remaining;
            waitLock.lock();
            try {
                sleepers.incrementAndGet();
                try {
                    while (slice > 0 && value.get() < threshold && errors.get() == errorsAtStart && !isClosed()) {
                        slice = changed.awaitNanos(slice);
                    }
                } finally {
                    sleepers.decrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -Errno.EINTR;
            } finally {
                waitLock.unlock();
            }
        }
    }

    private void wakeIfWaiting() {
        if (sleepers.get() != 0) {
            waitLock.lock();
            try {
                changed.signalAll();
            } finally {
                waitLock.unlock();
            }
            progress.wakeup();
        }
    }

    @Override
    protected void doClose() {
        waitLock.lock();
        try {
            changed.signalAll();
        } finally {
            waitLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "UtilCounter[value=" + value.get() + ", errors=" + errors.get() + "]";
    }
}
