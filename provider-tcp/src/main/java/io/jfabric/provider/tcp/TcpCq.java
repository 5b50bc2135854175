package io.jfabric.provider.tcp;

import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The tcp provider's completion queue (fi_cq(3)), with util_cq's ordering: successes ahead of an error are
 * returned first, a read stops at an error (-EAVAIL), entries behind it wait for {@link #readError}.
 * Entries live in preallocated parallel arrays that grow (doubling) only if the queue ever holds more than
 * its size, so steady-state completion allocates nothing. Reads drive manual progress of bound endpoints.
 *
 * <p>Interim: provider-util's CQ replaces this class once it lands; it is kept self-contained for that.
 */
final class TcpCq implements CompletionQueue {
    private final TcpDomain domain;
    private final CqAttr attr;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition nonEmpty = lock.newCondition();
    final ProgressList progress = new ProgressList();
    final AtomicInteger bindings = new AtomicInteger();

    private Object[] ctx;
    private long[] flags;
    private long[] len;
    private long[] buf;
    private long[] data;
    private long[] olen;
    private int[] err;
    private int head;
    private int count;
    private volatile boolean signaled;
    private volatile boolean closed;

    TcpCq(TcpDomain domain, CqAttr attr) {
        this.domain = domain;
        this.attr = attr;
        int cap = (int) Math.max(16, Math.min(attr.size <= 0 ? 1024 : attr.size, 1 << 20));
        alloc(cap);
    }

    private void alloc(int cap) {
        ctx = new Object[cap];
        flags = new long[cap];
        len = new long[cap];
        buf = new long[cap];
        data = new long[cap];
        olen = new long[cap];
        err = new int[cap];
    }

    private void grow() {
        int cap = ctx.length;
        Object[] c = ctx;
        long[] f = flags, l = len, b = buf, d = data, o = olen;
        int[] e = err;
        alloc(cap * 2);
        for (int i = 0; i < count; i++) {
            int j = (head + i) % cap;
            ctx[i] = c[j];
            flags[i] = f[j];
            len[i] = l[j];
            buf[i] = b[j];
            data[i] = d[j];
            olen[i] = o[j];
            err[i] = e[j];
        }
        head = 0;
    }

    /** Writes a success entry. */
    void complete(Object context, long entryFlags, long length, long bufAddr, long cqData) {
        push(context, entryFlags, length, bufAddr, cqData, 0, 0);
    }

    /** Writes an error entry ({@code errno} positive). */
    void completeError(Object context, long entryFlags, long length, long truncated, int errno) {
        push(context, entryFlags, length, 0, 0, truncated, errno);
    }

    private void push(Object context, long f, long l, long b, long d, long o, int e) {
        lock.lock();
        try {
            if (count == ctx.length) {
                grow();
            }
            int i = (head + count) % ctx.length;
            ctx[i] = context;
            flags[i] = f;
            len[i] = l;
            buf[i] = b;
            data[i] = d;
            olen[i] = o;
            err[i] = e;
            count++;
            nonEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void drive() {
        if (domain.manualProgress()) {
            progress.progressData();
        }
    }

    @Override
    public CqAttr attr() {
        return attr;
    }

    @Override
    public int read(CqEntry[] entries, int max) {
        drive();
        return take(entries, max);
    }

    @Override
    public int read(CqEntry entry) {
        drive();
        lock.lock();
        try {
            if (count == 0) {
                return -Errno.EAGAIN;
            }
            if (err[head] != 0) {
                return -Errno.EAVAIL;
            }
            fill(entry, head);
            pop();
            return 1;
        } finally {
            lock.unlock();
        }
    }

    private int take(CqEntry[] entries, int max) {
        lock.lock();
        try {
            if (count == 0) {
                return -Errno.EAGAIN;
            }
            int n = 0;
            while (n < max && count > 0 && err[head] == 0) {
                fill(entries[n++], head);
                pop();
            }
            if (n == 0 && max > 0) {
                return -Errno.EAVAIL;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    private void fill(CqEntry e, int i) {
        e.set(ctx[i], flags[i], len[i], buf[i], data[i], 0);
        e.srcAddr = Fabrics.ADDR_NOTAVAIL;
    }

    private void pop() {
        ctx[head] = null;
        head = (head + 1) % ctx.length;
        count--;
    }

    @Override
    public int readFrom(CqEntry[] entries, int max) {
        return read(entries, max);
    }

    @Override
    public int readError(CqErrEntry entry, long f) {
        drive();
        lock.lock();
        try {
            if (count == 0 || err[head] == 0) {
                return -Errno.EAGAIN;
            }
            entry.setError(ctx[head], flags[head], len[head], olen[head], err[head], err[head]);
            pop();
            return 1;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int sread(CqEntry[] entries, int max, int timeoutMillis) {
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            int n = read(entries, max);
            if (n != -Errno.EAGAIN) {
                return n;
            }
            if (signaled) {
                signaled = false;
                return -Errno.EAGAIN;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || closed) {
                return -Errno.EAGAIN;
            }
            waitForWork(left);
        }
    }

    private void waitForWork(long leftNanos) {
        long slice = Math.min(leftNanos, TimeUnit.MILLISECONDS.toNanos(10));
        if (domain.manualProgress()) {
            domain.tcpFabric().waitForIo(slice);
        } else {
            lock.lock();
            try {
                if (count == 0 && !signaled) {
                    nonEmpty.awaitNanos(slice);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public int sreadFrom(CqEntry[] entries, int max, int timeoutMillis) {
        return sread(entries, max, timeoutMillis);
    }

    @Override
    public void signal() {
        signaled = true;
        lock.lock();
        try {
            nonEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        domain.tcpFabric().wakeup();
    }

    int size() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        if (bindings.get() > 0) {
            throw new FabricException(Errno.EBUSY, "CQ is still bound to " + bindings.get()
                    + " endpoint(s); close the endpoints first");
        }
        if (!closed) {
            closed = true;
            domain.childClosed(this);
        }
    }

    @Override
    public String toString() {
        return "TcpCq[entries=" + size() + ", endpoints=" + progress.size() + "]";
    }
}
