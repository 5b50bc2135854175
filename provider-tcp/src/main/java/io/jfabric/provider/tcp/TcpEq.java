package io.jfabric.provider.tcp;

import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.OpFlags;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The tcp provider's event queue (fi_eq(3)): CM events (CONNREQ, CONNECTED, SHUTDOWN) and their errors
 * (a rejected connect is err=ECONNREFUSED with the reject data in errData). Reads drive the control
 * progress of bound endpoints and passive endpoints under manual progress. Control path: it allocates.
 *
 * <p>Interim: provider-util's EQ replaces this class once it lands.
 */
final class TcpEq implements EventQueue {
    private final TcpFabric fabric;
    private final EqAttr attr;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition nonEmpty = lock.newCondition();
    private final ArrayDeque<Object> events = new ArrayDeque<>();
    final ProgressList progress = new ProgressList();
    final AtomicInteger bindings = new AtomicInteger();
    private volatile boolean closed;

    TcpEq(TcpFabric fabric, EqAttr attr) {
        this.fabric = fabric;
        this.attr = attr;
    }

    void post(int event, Object fid, Object context, io.jfabric.FabricInfo info, byte[] cmData) {
        EqEntry e = new EqEntry().set(event, fid, context, 0, info, cmData);
        add(e);
    }

    void postError(Object fid, Object context, int err, int provErrno, byte[] errData) {
        add(new EqErrEntry().set(fid, context, 0, err, provErrno, errData));
    }

    private void add(Object e) {
        lock.lock();
        try {
            events.add(e);
            nonEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void drive() {
        if (fabric.manualControl()) {
            progress.progressAll();
        }
    }

    @Override
    public EqAttr attr() {
        return attr;
    }

    @Override
    public int read(EqEntry entry, long flags) {
        drive();
        lock.lock();
        try {
            Object head = events.peek();
            if (head == null) {
                return -Errno.EAGAIN;
            }
            if (head instanceof EqErrEntry) {
                return -Errno.EAVAIL;
            }
            EqEntry e = (EqEntry) head;
            entry.copyFrom(e);
            if ((flags & OpFlags.PEEK) == 0) {
                events.poll();
            }
            return e.event;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int readError(EqErrEntry entry, long flags) {
        drive();
        lock.lock();
        try {
            Object head = events.peek();
            if (!(head instanceof EqErrEntry e)) {
                return -Errno.EAGAIN;
            }
            entry.copyFrom(e);
            if ((flags & OpFlags.PEEK) == 0) {
                events.poll();
            }
            return 1;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int sread(EqEntry entry, int timeoutMillis, long flags) {
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            int n = read(entry, flags);
            if (n != -Errno.EAGAIN) {
                return n;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || closed) {
                return -Errno.EAGAIN;
            }
            long slice = Math.min(left, TimeUnit.MILLISECONDS.toNanos(10));
            if (fabric.manualControl()) {
                fabric.waitForIo(slice);
            } else {
                lock.lock();
                try {
                    if (events.isEmpty()) {
                        nonEmpty.awaitNanos(slice);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -Errno.EINTR;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    @Override
    public void write(EqEntry entry, long flags) {
        EqEntry c = new EqEntry();
        c.copyFrom(entry);
        add(c);
    }

    @Override
    public void writeError(EqErrEntry entry, long flags) {
        EqErrEntry c = new EqErrEntry();
        c.copyFrom(entry);
        add(c);
    }

    int size() {
        lock.lock();
        try {
            return events.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        if (bindings.get() > 0) {
            throw new FabricException(Errno.EBUSY, "EQ is still bound to " + bindings.get()
                    + " endpoint(s); close them first");
        }
        if (!closed) {
            closed = true;
            fabric.childClosed(this);
        }
    }

    @Override
    public String toString() {
        return "TcpEq[events=" + size() + ", bound=" + progress.size() + "]";
    }
}
