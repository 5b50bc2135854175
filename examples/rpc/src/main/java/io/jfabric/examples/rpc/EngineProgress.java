package io.jfabric.examples.rpc;

import io.jfabric.CompletionQueue;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;

import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The engine's progress and dispatch: reads the CQ and hands each completion to the {@link OpContext}
 * it was posted with, passes on the EQ's FI_JF_PEER_FAILED events, asks the engine to check deadlines and
 * liveness every millisecond, keeps the
 * queue of ready callbacks and runs them for HG_Trigger, and owns the optional progress thread and the
 * lock that serialises endpoint and queue access when that thread exists.
 */
final class EngineProgress {
    private static final long SCAN_INTERVAL_NANOS = 1_000_000L;

    private final RpcEngine engine;
    private final CompletionQueue cq;
    private final EventQueue eq;
    private final EqEntry event = new EqEntry();
    private final EqErrEntry eventError = new EqErrEntry();
    private final ReentrantLock lock;
    private final ReadyQueue ready = new ReadyQueue();
    private final CqEntry[] entries = CqEntry.array(16);
    private final CqErrEntry errEntry = new CqErrEntry();
    private long nextScanNanos = System.nanoTime();
    private volatile boolean running = true;
    private Thread thread;

    EngineProgress(RpcEngine engine, CompletionQueue cq, EventQueue eq, boolean withThread) {
        this.engine = engine;
        this.cq = cq;
        this.eq = eq;
        this.lock = withThread ? new ReentrantLock() : null;
    }

    /** Starts the progress thread, if the engine has one; called once the engine is fully built. */
    void start() {
        if (lock != null) {
            thread = Thread.ofPlatform().daemon().name("rpc-progress").start(this::loop);
        }
    }

    boolean hasThread() {
        return thread != null;
    }

    boolean running() {
        return running;
    }

    /** Queues a callback for {@link #trigger}; caller holds the lock. */
    void ready(Triggerable t) {
        ready.add(t);
    }

    /**
     * HG_Progress: drives the endpoint until some callback is ready or {@code timeoutMillis} passes.
     * Returns how many callbacks are ready. With a progress thread it only waits.
     */
    int progress(long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        int idle = 0;
        while (true) {
            lock();
            try {
                if (thread == null) {
                    progressOnce();
                }
                if (!ready.isEmpty()) {
                    return ready.size();
                }
            } finally {
                unlock();
            }
            if (System.nanoTime() - deadline >= 0) {
                return 0;
            }
            idle = idleWait(idle);
        }
    }

    /** HG_Trigger: runs up to {@code max} ready callbacks on this thread; returns how many ran. */
    int trigger(int max) {
        int n = 0;
        while (n < max) {
            Triggerable t;
            lock();
            try {
                t = ready.poll();
            } finally {
                unlock();
            }
            if (t == null) {
                break;
            }
            t.fire();
            n++;
        }
        return n;
    }

    /** One pass: read the CQ, dispatch completions, check deadlines and liveness. Caller holds the lock. */
    int progressOnce() {
        int total = 0;
        int rc;
        while ((rc = cq.read(entries, entries.length)) > 0 || rc == -Errno.EAVAIL) {
            if (rc == -Errno.EAVAIL) {
                if (cq.readError(errEntry, 0) == 1 && errEntry.context instanceof OpContext ctx) {
                    ctx.complete(errEntry, errEntry.err == 0 ? Errno.EIO : errEntry.err);
                }
                total++;
                continue;
            }
            for (int i = 0; i < rc; i++) {
                CqEntry e = entries[i];
                if (e.context instanceof OpContext ctx) {
                    ctx.complete(e, 0);
                }
                e.context = null;
            }
            total += rc;
        }
        long now = System.nanoTime();
        if (now - nextScanNanos >= 0) {
            nextScanNanos = now + SCAN_INTERVAL_NANOS;
            readPeerFailures();
            engine.scanDeadlines(now);
        }
        return total;
    }

    /** FI_JF_PEER_FAILED on the endpoint's EQ: the engine fails what is outstanding to that peer at once. */
    private void readPeerFailures() {
        if (eq == null) {
            return;
        }
        int rc;
        while ((rc = eq.read(event, 0)) != -Errno.EAGAIN) {
            if (rc == EqEvent.PEER_FAILED) {
                engine.onPeerFailed(event.data);
            } else if (rc == -Errno.EAVAIL) {
                eq.readError(eventError, 0); // nothing the engine posts raises one; dropped
            } else if (rc < 0) {
                return;
            }
        }
    }

    /** Drives completions (no callbacks) while a post is refused with EAGAIN; false once {@code until} passed. */
    boolean drainUntil(long until) {
        progressOnce();
        if (System.nanoTime() - until >= 0) {
            return false;
        }
        Thread.onSpinWait();
        return true;
    }

    private void loop() {
        int idle = 0;
        while (running) {
            int n;
            lock.lock();
            try {
                n = progressOnce();
            } finally {
                lock.unlock();
            }
            idle = n > 0 ? 0 : idleWait(idle);
        }
    }

    /** Spin briefly, then yield, then sleep a little: the machine may have fewer cores than busy threads. */
    private static int idleWait(int idle) {
        if (idle < 64) {
            Thread.onSpinWait();
        } else if (idle < 256) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(50_000);
        }
        return idle + 1;
    }

    void lock() {
        if (lock != null) {
            lock.lock();
        }
    }

    void unlock() {
        if (lock != null) {
            lock.unlock();
        }
    }

    /** Stops the progress thread and waits for it (bounded). */
    void stop() {
        running = false;
        if (thread != null) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
