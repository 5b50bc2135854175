package io.jfabric.util;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Progress;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A domain's progress engine, the role of libfabric's {@code util_domain}/{@code ofi_*_progress} and
 * the per-provider progress threads: a set of {@link Task}s (poll a selector, drain a shm ring, run
 * timers) that either the application's reads drive ({@link Progress#MANUAL}: pass {@link #hook()} to
 * the CQs, EQs and counters) or an Agrona {@link AgentRunner} thread runs ({@link Progress#AUTO}) with
 * a configurable {@link IdleStrategy}.
 *
 * <p>Threading: tasks run on one thread at a time in AUTO mode (the agent). In MANUAL mode they run on
 * whichever thread reads; when several threads may read at once (FI_THREAD_SAFE) the provider either
 * makes its tasks safe or constructs the engine with {@code serialize = true}, which lets one reader
 * progress at a time and makes the others return at once (they find the completions the first one
 * produced). Adding and removing tasks is safe from any thread at any time (copy-on-write).
 *
 * <p>An optional {@link Blocker} (a selector or futex the tasks' I/O signals) lets waits sleep on I/O
 * instead of polling: sread and counter waits block in it in MANUAL mode, and the idle strategy
 * {@code "block"} sleeps in it in AUTO mode.
 */
public final class ProgressEngine implements AutoCloseable {
    /** One unit of progress work, run repeatedly; must not allocate per call, and must not block. */
    @FunctionalInterface
    public interface Task {
        /** Does what is ready; returns how much work it did (0 = nothing was ready). */
        int doWork();
    }

    /** Sleeps on the provider's I/O readiness (e.g. {@code Selector.select(ms)} / {@code wakeup()}). */
    public interface Blocker {
        void block(long nanos);

        void wakeup();
    }

    private static final Task[] NO_TASKS = new Task[0];

    private final String name;
    private final Progress mode;
    private final IdleStrategy idle;
    private final Blocker blocker;
    private final boolean serialize;
    private final System.Logger log;
    private volatile Task[] tasks = NO_TASKS;
    private final java.util.concurrent.atomic.AtomicBoolean busy = new java.util.concurrent.atomic.AtomicBoolean();
    private final AtomicLong errors = new AtomicLong();
    private volatile Throwable lastError;
    private AgentRunner runner;
    private boolean closed;
    private final ProgressHook manualHook;

    /**
     * @param name      thread and log name ("tcp-progress")
     * @param mode      AUTO (own thread) or MANUAL (reads drive it); UNSPEC means MANUAL
     * @param idle      idle strategy of the AUTO thread (see {@link #idleStrategy}); ignored for MANUAL
     * @param blocker   optional I/O sleeper, may be null
     * @param serialize MANUAL only: let one thread progress at a time
     */
    public ProgressEngine(String name, Progress mode, IdleStrategy idle, Blocker blocker, boolean serialize) {
        this.name = name;
        this.mode = mode == Progress.AUTO ? Progress.AUTO : Progress.MANUAL;
        this.idle = idle == null ? new BackoffIdleStrategy() : idle;
        this.blocker = blocker;
        this.serialize = serialize;
        this.log = FabricLog.logger(name);
        this.manualHook = new ManualHook();
    }

    /** MANUAL engine without a blocker. */
    public static ProgressEngine manual(String name) {
        return new ProgressEngine(name, Progress.MANUAL, null, null, false);
    }

    public Progress mode() {
        return mode;
    }

    /**
     * The hook to give the queues: drives the tasks in MANUAL mode; in AUTO mode
     * {@link ProgressHook#NONE}, so reads never run tasks concurrently with the agent and waits sleep
     * until the agent writes.
     */
    public ProgressHook hook() {
        return mode == Progress.AUTO ? ProgressHook.NONE : manualHook;
    }

    public void add(Task task) {
        synchronized (this) {
            Task[] t = tasks;
            Task[] n = Arrays.copyOf(t, t.length + 1);
            n[t.length] = task;
            tasks = n;
        }
        wakeup();
    }

    /** Removes a task; in AUTO mode it may run once more if the agent is mid-pass. */
    public synchronized boolean remove(Task task) {
        Task[] t = tasks;
        for (int i = 0; i < t.length; i++) {
            if (t[i] == task) {
                Task[] n = new Task[t.length - 1];
                System.arraycopy(t, 0, n, 0, i);
                System.arraycopy(t, i + 1, n, i, t.length - i - 1);
                tasks = n;
                return true;
            }
        }
        return false;
    }

    /** Runs every task once on the calling thread; returns the work done. Used by MANUAL hooks and tests. */
    public int runOnce() {
        if (serialize && mode == Progress.MANUAL) {
            if (!busy.compareAndSet(false, true)) {
                return 0;
            }
            try {
                return runTasks();
            } finally {
                busy.set(false);
            }
        }
        return runTasks();
    }

    private int runTasks() {
        int work = 0;
        Task[] t = tasks;
        for (Task task : t) {
            try {
                work += task.doWork();
            } catch (RuntimeException e) {
                // A task failure must not stop every other endpoint's progress; providers turn
                // their own failures into error completions, so this is a provider bug worth a loud log.
                recordError(e);
            }
        }
        return work;
    }

    private void recordError(Throwable e) {
        errors.incrementAndGet();
        lastError = e;
        log.log(System.Logger.Level.ERROR, "progress task failed in " + name, e);
    }

    /** Task failures so far (each is logged). */
    public long errorCount() {
        return errors.get();
    }

    public Throwable lastError() {
        return lastError;
    }

    /** Starts the AUTO thread (a daemon named after the engine); no-op in MANUAL mode or if started. */
    public synchronized void start() {
        if (closed) {
            throw new FabricException(Errno.EBADF, "progress engine " + name + " is closed");
        }
        if (mode != Progress.AUTO || runner != null) {
            return;
        }
        runner = new AgentRunner(idle, this::recordError, null, new Agent() {
            @Override
            public int doWork() {
                return runTasks();
            }

            @Override
            public String roleName() {
                return name;
            }
        });
        AgentRunner.startOnThread(runner, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** True while the AUTO thread runs. */
    public synchronized boolean isRunning() {
        return runner != null && !runner.isClosed();
    }

    /** Stops the AUTO thread and waits for it; the engine can be started again. */
    public void stop() {
        AgentRunner r;
        synchronized (this) {
            r = runner;
            runner = null;
        }
        if (r != null) {
            wakeup();
            r.close();
        }
    }

    @Override
    public void close() {
        stop();
        synchronized (this) {
            closed = true;
            tasks = NO_TASKS;
        }
    }

    private void wakeup() {
        if (blocker != null) {
            blocker.wakeup();
        }
    }

    /** The blocker given at construction, or null. */
    public Blocker blocker() {
        return blocker;
    }

    @Override
    public String toString() {
        return "ProgressEngine[" + name + ", " + mode.cName() + ", tasks=" + tasks.length + ", errors=" + errors.get()
                + "]";
    }

    private final class ManualHook implements ProgressHook {
        @Override
        public int progress() {
            return runOnce();
        }

        @Override
        public boolean canBlock() {
            return blocker != null;
        }

        @Override
        public void block(long nanos) {
            if (blocker != null) {
                blocker.block(nanos);
            }
        }

        @Override
        public void wakeup() {
            ProgressEngine.this.wakeup();
        }
    }

    // ---- idle strategies -------------------------------------------------------------------------

    /**
     * Idle strategy by name, for a provider parameter: {@code busy} (spin; lowest latency, burns a core),
     * {@code yield}, {@code backoff} (spin, yield, then park up to 1 ms; the default),
     * {@code sleep[:micros]} (park a fixed time, default 100 µs), {@code block[:micros]} (sleep in the
     * blocker, default up to 10 ms; falls back to sleep when there is none).
     */
    public static IdleStrategy idleStrategy(String spec, Blocker blocker) {
        String s = spec == null ? "backoff" : spec.trim().toLowerCase(Locale.ROOT);
        String kind = s;
        long micros = -1;
        int colon = s.indexOf(':');
        if (colon >= 0) {
            kind = s.substring(0, colon);
            try {
                micros = Long.parseLong(s.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                micros = -2;
            }
            if (micros < 1) {
                throw new FabricException(Errno.EINVAL, "idle strategy '" + spec
                        + "': the part after ':' must be a positive number of microseconds");
            }
        }
        return switch (kind) {
            case "busy", "spin" -> new BusySpinIdleStrategy();
            case "yield" -> new YieldingIdleStrategy();
            case "backoff" -> new BackoffIdleStrategy(64, 64, TimeUnit.MICROSECONDS.toNanos(1),
                    TimeUnit.MILLISECONDS.toNanos(1));
            case "sleep" -> new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(micros > 0 ? micros : 100));
            case "block" -> blocker == null
                    ? new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(micros > 0 ? micros : 100))
                    : new BlockingIdleStrategy(blocker, TimeUnit.MICROSECONDS.toNanos(micros > 0 ? micros : 10_000));
            default -> throw new FabricException(Errno.EINVAL, "unknown idle strategy '" + spec
                    + "'; use busy, yield, backoff, sleep[:micros] or block[:micros]");
        };
    }

    /** Idles by sleeping in the provider's blocker, so an AUTO thread wakes on I/O, not on a timer. */
    static final class BlockingIdleStrategy implements IdleStrategy {
        private final Blocker blocker;
        private final long maxNanos;

        BlockingIdleStrategy(Blocker blocker, long maxNanos) {
            this.blocker = blocker;
            this.maxNanos = maxNanos;
        }

        @Override
        public void idle(int workCount) {
            if (workCount <= 0) {
                blocker.block(maxNanos);
            }
        }

        @Override
        public void idle() {
            blocker.block(maxNanos);
        }

        @Override
        public void reset() {
        }

        @Override
        public String alias() {
            return "block";
        }
    }

    /**
     * The engine setting a provider exposes as a parameter: {@code progress_idle}, the AUTO thread's
     * idle strategy ({@code FI_<PROV>_PROGRESS_IDLE}). The mode itself comes from the domain's
     * data_progress, as in libfabric.
     */
    public static final class Params {
        public final ProviderParams.StringParam idle;

        public Params(ProviderParams params) {
            idle = params.string("progress_idle", "backoff",
                    "Idle strategy of the auto-progress thread: busy, yield, backoff, sleep[:us], block[:us]");
        }

        /** A new engine for {@code mode} with the configured idle strategy. */
        public ProgressEngine engine(String name, Progress mode, Blocker blocker, boolean serialize) {
            return new ProgressEngine(name, mode, idleStrategy(idle.get(), blocker), blocker, serialize);
        }
    }
}
