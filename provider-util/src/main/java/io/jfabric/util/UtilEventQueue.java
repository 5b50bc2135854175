package io.jfabric.util;

import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.OpFlags;
import io.jfabric.WaitObj;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * libfabric's util EQ ({@code prov/util/src/util_eq.c}), following fi_eq(3): an ordered queue of
 * control events (CONNREQ with its info and CM data, CONNECTED, SHUTDOWN, MR_COMPLETE, AV_COMPLETE)
 * and error entries (with err_data), shared safely by any number of threads. This is the control
 * path, so each event is a fresh object; the lock is uncontended in practice.
 *
 * <ul>
 * <li>{@link #read} returns the event number and fills the entry, {@code -EAGAIN} when empty, or
 * {@code -EAVAIL} when the head is an error entry; FI_PEEK (OpFlags.PEEK) leaves the event queued.
 * Difference from libfabric: the return value is the event number, not the byte count (the Java entry
 * has no size), as the API says.</li>
 * <li>{@link #readError} takes the error at the head, or returns {@code -EAGAIN}.</li>
 * <li>sread sleeps until an event arrives or the timeout passes ({@code -EAGAIN}); with a manual
 * {@link ProgressHook} it drives progress between short sleeps, or blocks in the hook.</li>
 * <li>Capacity is {@code attr.size} (default 1024). The application's {@link #write} throws EAGAIN
 * when full. A provider write that finds it full returns {@code -EOVERRUN}, the event is lost, and the
 * EQ reports an EOVERRUN error entry at the point of loss, so the application learns of it.</li>
 * </ul>
 */
public class UtilEventQueue extends UtilFabricObject implements EventQueue, Waitable {
    public static final int DEFAULT_SIZE = 1024;

    private final EqAttr attr;
    private final int capacity;
    private final ProgressHook progress;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition nonEmpty = lock.newCondition();
    /** Holds EqEntry (success) and EqErrEntry (error) objects in arrival order. */
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private final long manualPollNanos = TimeUnit.MICROSECONDS.toNanos(500);
    private boolean overrunQueued;
    private long lost;
    /** The wait set this EQ joined (FI_WAIT_SET), else null. */
    private final UtilWaitSet waitSet;

    public UtilEventQueue(EqAttr attr, ProgressHook progress) {
        super("EQ");
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "EQ attributes are null; pass EqAttr.defaults()");
        }
        if (attr.size < 0 || attr.size > (1 << 20)) {
            throw new FabricException(Errno.EINVAL, "EQ size " + attr.size
                    + " is out of range; use 0 (default " + DEFAULT_SIZE + ") up to " + (1 << 20));
        }
        this.attr = attr;
        this.capacity = attr.size == 0 ? DEFAULT_SIZE : (int) attr.size;
        this.progress = progress == null ? ProgressHook.NONE : progress;
        this.waitSet = UtilWaitSet.joinable("EQ", attr.waitObj, attr.waitSet);
        if (waitSet != null) {
            waitSet.join(this);
        }
    }

    @Override
    public EqAttr attr() {
        return attr;
    }

    public int capacity() {
        return capacity;
    }

    /** Events and errors queued. */
    public int size() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** Events lost because the EQ was full. */
    public long lostEvents() {
        lock.lock();
        try {
            return lost;
        } finally {
            lock.unlock();
        }
    }

    // ---- provider side ---------------------------------------------------------------------------

    /** Queues an event ({@code ofi_eq_write}); returns 0 or -EOVERRUN when full (the event is lost and reported). */
    public int post(int event, Object fid, Object context, long data, FabricInfo info, byte[] cmData) {
        return offer(new EqEntry().set(event, fid, context, data, info, cmData));
    }

    /** A CONNREQ on a passive endpoint: {@code info.handle} is the request to accept or reject. */
    public int postConnReq(Object pep, Object context, FabricInfo info, byte[] cmData) {
        return post(EqEvent.CONNREQ, pep, context, 0, info, cmData);
    }

    public int postConnected(Object ep, Object context, byte[] cmData) {
        return post(EqEvent.CONNECTED, ep, context, 0, null, cmData);
    }

    public int postShutdown(Object ep, Object context) {
        return post(EqEvent.SHUTDOWN, ep, context, 0, null, null);
    }

    public int postMrComplete(Object mr, Object context) {
        return post(EqEvent.MR_COMPLETE, mr, context, 0, null, null);
    }

    /** FI_AV_COMPLETE: {@code data} is how many addresses the insert inserted. */
    public int postAvComplete(Object av, Object context, long inserted) {
        return post(EqEvent.AV_COMPLETE, av, context, inserted, null, null);
    }

    /** Queues an error entry ({@code ofi_eq_write(..., FI_EQ_ERR_ENTRY)}); err is a positive Errno. */
    public int postError(Object fid, Object context, long data, int err, int provErrno, byte[] errData) {
        int e = Math.abs(err) == 0 ? Errno.EOTHER : Math.abs(err);
        return offer(new EqErrEntry().set(fid, context, data, e, provErrno, errData));
    }

    private int offer(Object e) {
        lock.lock();
        try {
            if (isClosed()) {
                return -Errno.EBADF;
            }
            if (queue.size() >= capacity) {
                lost++;
                if (!overrunQueued) {
                    // The marker goes past the capacity once, so the loss is always reported.
                    overrunQueued = true;
                    queue.addLast(new EqErrEntry().set(this, null, 0, Errno.EOVERRUN, 0, null));
                }
                nonEmpty.signalAll();
                return -Errno.EOVERRUN;
            }
            queue.addLast(e);
            nonEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        progress.wakeup();
        notifyWaitSet();
        return 0;
    }

    private void notifyWaitSet() {
        UtilWaitSet set = waitSet;
        if (set != null) {
            set.memberEvent();
        }
    }

    // ---- Waitable: wait sets, poll sets, trywait --------------------------------------------------

    @Override
    public WaitObj waitObj() {
        return attr.waitObj;
    }

    /** Whether a read would return an event now, without driving progress. */
    @Override
    public boolean hasEvents() {
        return size() > 0;
    }

    @Override
    public ProgressHook progressHook() {
        return progress;
    }

    // ---- application side ------------------------------------------------------------------------

    @Override
    public int read(EqEntry entry, long flags) {
        if (entry == null) {
            return -Errno.EINVAL;
        }
        progress.progress();
        lock.lock();
        try {
            return takeLocked(entry, flags);
        } finally {
            lock.unlock();
        }
    }

    private int takeLocked(EqEntry entry, long flags) {
        Object head = queue.peekFirst();
        if (head == null) {
            return -Errno.EAGAIN;
        }
        if (head instanceof EqErrEntry) {
            return -Errno.EAVAIL;
        }
        EqEntry e = (EqEntry) head;
        entry.copyFrom(e);
        if ((flags & OpFlags.PEEK) == 0) {
            queue.pollFirst();
        }
        return e.event;
    }

    @Override
    public int readError(EqErrEntry entry, long flags) {
        if (entry == null) {
            return -Errno.EINVAL;
        }
        lock.lock();
        try {
            Object head = queue.peekFirst();
            if (!(head instanceof EqErrEntry err)) {
                return -Errno.EAGAIN;
            }
            entry.copyFrom(err);
            if ((flags & OpFlags.PEEK) == 0) {
                queue.pollFirst();
                if (err.err == Errno.EOVERRUN && err.fid == this) {
                    overrunQueued = false;
                    entry.data = lost;
                }
            }
            return 1;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int sread(EqEntry entry, int timeoutMillis, long flags) {
        if (entry == null) {
            return -Errno.EINVAL;
        }
        if (attr.waitObj == WaitObj.NONE) {
            return -Errno.ENOSYS;
        }
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        boolean manual = progress != ProgressHook.NONE;
        for (;;) {
            progress.progress();
            long remaining = timeoutMillis < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
            if (manual && progress.canBlock()) {
                lock.lock();
                try {
                    int rc = takeLocked(entry, flags);
                    if (rc != -Errno.EAGAIN || remaining <= 0) {
                        return rc;
                    }
                } finally {
                    lock.unlock();
                }
                progress.block(remaining);
                if (Thread.currentThread().isInterrupted()) {
                    return -Errno.EINTR;
                }
                continue;
            }
            lock.lock();
            try {
                int rc = takeLocked(entry, flags);
                if (rc != -Errno.EAGAIN || remaining <= 0) {
                    return rc;
                }
                if (isClosed()) {
                    return -Errno.EAGAIN;
                }
                nonEmpty.awaitNanos(manual ? Math.min(remaining, manualPollNanos) : remaining);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -Errno.EINTR;
            } finally {
                lock.unlock();
            }
        }
    }

    /** {@code fi_eq_write}: the application inserts an event; throws EAGAIN when the EQ is full. */
    @Override
    public void write(EqEntry entry, long flags) {
        checkOpen("write to");
        if (entry == null) {
            throw new FabricException(Errno.EINVAL, "EQ write of a null entry");
        }
        EqEntry copy = new EqEntry();
        copy.copyFrom(entry);
        appOffer(copy);
    }

    @Override
    public void writeError(EqErrEntry entry, long flags) {
        checkOpen("write to");
        if (entry == null) {
            throw new FabricException(Errno.EINVAL, "EQ writeError of a null entry");
        }
        EqErrEntry copy = new EqErrEntry();
        copy.copyFrom(entry);
        if (copy.err <= 0) {
            copy.err = copy.err == 0 ? Errno.EOTHER : -copy.err;
        }
        appOffer(copy);
    }

    private void appOffer(Object e) {
        lock.lock();
        try {
            if (queue.size() >= capacity) {
                throw new FabricException(Errno.EAGAIN, "EQ is full (" + capacity
                        + " events); read events before writing more, or open it with a larger EqAttr.size");
            }
            queue.addLast(e);
            nonEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        progress.wakeup();
        notifyWaitSet();
    }

    @Override
    protected void doClose() {
        lock.lock();
        try {
            queue.clear();
            nonEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        progress.wakeup();
        if (waitSet != null) {
            waitSet.leave(this);
        }
    }

    @Override
    public String toString() {
        return "UtilEventQueue[capacity=" + capacity + ", queued=" + size() + "]";
    }
}
