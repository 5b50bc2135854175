package io.jfabric.provider.tcp;

import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The tcp fabric ({@code fi_fabric}). It owns one {@link Selector} that every socket of its domains and
 * passive endpoints is registered with: blocking reads (sread, counter wait) sleep on it under manual
 * progress, and the auto-progress thread ({@link AutoProgress}) waits on it. Control progress (EQ) is
 * manual unless the info asks FI_PROGRESS_AUTO.
 */
final class TcpFabric implements Fabric {
    private static final Consumer<SelectionKey> IGNORE = k -> { };
    /** Interest changes after which a selector nobody waits on is flushed ({@link #interestChanged}). */
    private static final int FLUSH_INTEREST_EVERY = 64;

    private final FabricInfo info;
    private final Selector selector;
    private final boolean manualControl;
    private final AtomicInteger children = new AtomicInteger();
    final ProgressList everything = new ProgressList();
    /** Sends held for the next progress call, against readers asleep in {@link #waitForIo}. */
    final SendHolds holds = new SendHolds();
    private AutoProgress auto;
    private volatile boolean closed;
    /** Held by the thread using the selector (a waiter in select, or a flush). */
    private final ReentrantLock selecting = new ReentrantLock();
    /** Interest changes since the selector last ran; racy, as it only paces {@link #interestChanged}. */
    private int interestChanges;

    TcpFabric(FabricInfo info) {
        this.info = info;
        this.manualControl = info.domainAttr == null || info.domainAttr.controlProgress != Progress.AUTO;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new FabricException(Errno.EIO, "cannot open a java.nio Selector: " + e.getMessage());
        }
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    boolean manualControl() {
        return manualControl;
    }

    @Override
    public Domain openDomain(FabricInfo di) {
        checkOpen();
        TcpDomain d = new TcpDomain(this, di == null ? info : di);
        children.incrementAndGet();
        if (!d.manualProgress() || !manualControl) {
            startAuto();
        }
        return d;
    }

    @Override
    public PassiveEndpoint openPassiveEndpoint(FabricInfo pi) {
        checkOpen();
        TcpPassiveEndpoint p = new TcpPassiveEndpoint(this, pi == null ? info : pi);
        children.incrementAndGet();
        everything.add(p);
        if (!manualControl) {
            startAuto();
        }
        return p;
    }

    @Override
    public EventQueue openEq(EqAttr attr) {
        checkOpen();
        children.incrementAndGet();
        return TcpEq.open(this, attr == null ? new EqAttr() : attr);
    }

    private synchronized void startAuto() {
        if (auto == null) {
            auto = new AutoProgress(this);
            auto.start();
        }
    }

    /** Registers a socket with the fabric's selector (interest changes later through the key). */
    SelectionKey register(SelectableChannel ch, int ops, Object attachment) {
        try {
            SelectionKey k = ch.register(selector, ops, attachment);
            selector.wakeup();
            return k;
        } catch (ClosedChannelException e) {
            return null;
        }
    }

    /** Sleeps until a registered socket is ready, {@link #wakeup()} is called, or the time passes. */
    void waitForIo(long nanos) {
        long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos));
        if (!holds.sleeping()) {
            holds.awake();
            return; // a connection holds a send for the next progress call: the caller's next pass writes it
        }
        selecting.lock();
        try {
            interestChanges = 0;
            selector.select(IGNORE, millis);
        } catch (IOException | RuntimeException e) {
            // a closed selector or channel: the caller re-checks its state
        } finally {
            selecting.unlock();
            holds.awake();
        }
    }

    /**
     * A key's interest set changed. java.nio queues every change until the selector next runs, and under
     * manual progress with spinning CQ reads it may never run: a connection that toggles its read interest
     * (a receiver out of buffers, then not) grew that queue by one entry per toggle, without bound. So every
     * {@link #FLUSH_INTEREST_EVERY} changes the selector runs once without waiting, unless a thread is in it
     * already (its select applies them).
     */
    void interestChanged() {
        if (++interestChanges < FLUSH_INTEREST_EVERY || !selecting.tryLock()) {
            return;
        }
        try {
            interestChanges = 0;
            selector.selectNow(IGNORE);
        } catch (IOException | RuntimeException e) {
            // a closed selector: nothing is queued any more
        } finally {
            selecting.unlock();
        }
    }

    void wakeup() {
        selector.wakeup();
    }

    /**
     * Lets the kernel really close sockets closed since the last select. java.nio keeps the descriptor of a
     * channel closed while registered until its selector flushes the cancelled key; under manual progress
     * nobody may select for a long time, and meanwhile a closed listening socket still completes the TCP
     * handshake of connections that nobody will ever answer (a peer's connect then waits forever).
     */
    static void flushCancelledKeys(Selector selector) {
        selector.wakeup(); // a thread in select returns now, so the selector is free soon
        try {
            selector.selectNow(IGNORE);
        } catch (IOException | RuntimeException e) {
            // a closed selector has closed everything already
        }
    }

    void childClosed(Object child) {
        if (child instanceof Progressable p) {
            everything.remove(p);
        }
        children.decrementAndGet();
    }

    private void checkOpen() {
        if (closed) {
            throw new FabricException(Errno.EINVAL, "fabric is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (children.get() > 0) {
            throw new FabricException(Errno.EBUSY, "fabric still has " + children.get()
                    + " open domain(s), passive endpoint(s) or EQ(s); close them first");
        }
        closed = true;
        AutoProgress a;
        synchronized (this) {
            a = auto;
            auto = null;
        }
        if (a != null) {
            a.stop();
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing to release beyond this
        }
    }

    @Override
    public String toString() {
        return "TcpFabric[" + (info.fabricAttr == null ? "?" : info.fabricAttr.name) + "]";
    }
}
