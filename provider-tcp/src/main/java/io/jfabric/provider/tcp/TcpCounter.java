package io.jfabric.provider.tcp;

import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tcp provider's counter (fi_cntr(3)): a success and an error count, bumped for every completed
 * operation of the bound kinds whether or not a CQ entry is written. Reads drive manual progress.
 *
 * <p>Interim: provider-util's counter replaces this class once it lands.
 */
final class TcpCounter implements Counter {
    private final TcpDomain domain;
    private final AtomicLong value = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    final ProgressList progress = new ProgressList();
    final AtomicInteger bindings = new AtomicInteger();
    private volatile boolean closed;

    TcpCounter(TcpDomain domain, CounterAttr attr) {
        this.domain = domain;
    }

    void inc() {
        value.incrementAndGet();
    }

    void incError() {
        errors.incrementAndGet();
    }

    private void drive() {
        if (domain.manualProgress()) {
            progress.progressData();
        }
    }

    @Override
    public long read() {
        drive();
        return value.get();
    }

    @Override
    public long readError() {
        drive();
        return errors.get();
    }

    @Override
    public void add(long v) {
        value.addAndGet(v);
    }

    @Override
    public void set(long v) {
        value.set(v);
    }

    @Override
    public void addError(long v) {
        errors.addAndGet(v);
    }

    @Override
    public void setError(long v) {
        errors.set(v);
    }

    @Override
    public int await(long threshold, int timeoutMillis) {
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long errs = errors.get();
        while (true) {
            drive();
            if (value.get() >= threshold) {
                return 0;
            }
            if (errors.get() != errs) {
                return -Errno.EAVAIL;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return -Errno.ETIMEDOUT;
            }
            long slice = Math.min(left, TimeUnit.MILLISECONDS.toNanos(10));
            if (domain.manualProgress()) {
                domain.tcpFabric().waitForIo(slice);
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(Math.min(slice, 100_000));
            }
        }
    }

    @Override
    public void close() {
        if (bindings.get() > 0) {
            throw new FabricException(Errno.EBUSY, "counter is still bound to " + bindings.get() + " endpoint(s)");
        }
        if (!closed) {
            closed = true;
            domain.childClosed(this);
        }
    }
}
