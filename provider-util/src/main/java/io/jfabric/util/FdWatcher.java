package io.jfabric.util;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A thread of its own asleep in poll(2) on a changing set of descriptors: when one becomes readable (or reports an
 * error or a hang-up) it runs that descriptor's action once and forgets it. This is how a provider hears of what no
 * operation of its own would show while its users sleep, such as a peer process's exit on a pidfd. The thread starts
 * with the first {@link #watch} and ends with the last {@link #unwatch}, so a process with nothing watched keeps
 * neither the thread nor its eventfd; changes reach a poll under way through that eventfd.
 *
 * <p>An action runs on the watcher's thread, so it must be short and must not block. It may race with the
 * {@link #unwatch} of its own descriptor: then it has begun already, or never runs. A descriptor must stay open until
 * it is unwatched; one closed while it is still watched is dropped without its action.
 */
public final class FdWatcher {
    private static final System.Logger LOG = System.getLogger(FdWatcher.class.getName());
    /** How long {@link #unwatch} of the last descriptor waits for the thread to close its eventfd and end. */
    private static final long END_WAIT_MILLIS = TimeUnit.SECONDS.toMillis(5);

    /** One watched descriptor, as {@link #watch} returns it. */
    public static final class Watch {
        final int fd;
        final Runnable onReady;

        private Watch(int fd, Runnable onReady) {
            this.fd = fd;
            this.onReady = onReady;
        }
    }

    private final String threadName;
    /** Guarded by this, as are the two fields below. */
    private final List<Watch> watches = new ArrayList<>();
    private Thread thread;
    /** The running thread's eventfd, or -1. */
    private int wakeFd = -1;

    public FdWatcher(String threadName) {
        this.threadName = threadName;
    }

    /** Watches {@code fd}: {@code onReady} runs once, on the watcher's thread, when it becomes readable. */
    public synchronized Watch watch(int fd, Runnable onReady) {
        Watch w = new Watch(fd, onReady);
        watches.add(w);
        if (thread == null) {
            int efd = PollCalls.eventfd();
            wakeFd = efd;
            thread = Thread.ofPlatform().daemon().name(threadName).unstarted(() -> run(efd));
            thread.start();
        } else {
            wake();
        }
        return w;
    }

    /**
     * Stops watching; afterwards the descriptor may be closed. When nothing is left to watch, waits (at most a few
     * seconds) for the thread to end, so that its eventfd is closed when this returns.
     */
    public void unwatch(Watch w) {
        synchronized (this) {
            if (watches.remove(w)) {
                wake();
            } // else its action has run or runs now, and the thread looks at the set after it
            Thread ending = thread;
            if (!watches.isEmpty() || ending == null || ending == Thread.currentThread()) {
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(END_WAIT_MILLIS);
            boolean interrupted = false;
            while (watches.isEmpty() && thread == ending) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    LOG.log(System.Logger.Level.WARNING, "{0} did not end within {1} ms", threadName, END_WAIT_MILLIS);
                    break;
                }
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether the thread runs (for tests). */
    synchronized boolean running() {
        return thread != null;
    }

    /** Ends the thread's poll under way, or its next one. Call holding the lock: the eventfd stays open meanwhile. */
    private void wake() {
        if (wakeFd >= 0) {
            PollCalls.signal(wakeFd);
        }
    }

    private void run(int efd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment drained = arena.allocate(JAVA_LONG);
            MemorySegment fds = MemorySegment.NULL;
            for (;;) {
                Watch[] snapshot;
                synchronized (this) {
                    if (watches.isEmpty()) {
                        ended(efd);
                        return;
                    }
                    snapshot = watches.toArray(new Watch[0]);
                }
                long count = snapshot.length + 1L;
                if (fds.byteSize() < count * PollCalls.POLLFD_SIZE) {
                    fds = arena.allocate(2 * count * PollCalls.POLLFD_SIZE, 8);
                }
                set(fds, 0, efd);
                for (int i = 0; i < snapshot.length; i++) {
                    set(fds, i + 1, snapshot[i].fd);
                }
                int ready = (int) PollCalls.POLL.invokeExact(fds, count, -1);
                if (ready <= 0) {
                    Thread.sleep(1); // EINTR, or a failure that must not become a spin
                    continue;
                }
                if (revents(fds, 0) != 0) {
                    long unused = (long) PollCalls.READ.invokeExact(efd, drained, 8L);
                }
                for (int i = 0; i < snapshot.length; i++) {
                    short r = revents(fds, i + 1);
                    if (r != 0) {
                        fire(snapshot[i], r);
                    }
                }
            }
        } catch (Throwable t) {
            // nothing is expected here; without the thread, providers fall back on their periodic checks
            LOG.log(System.Logger.Level.ERROR, threadName + " stopped", t);
            synchronized (this) {
                ended(efd);
            }
        }
    }

    /** The thread is ending (holding the lock): its eventfd closes, and an unwatch waiting for the end returns. */
    private void ended(int efd) {
        closeEventFd(efd);
        wakeFd = -1;
        thread = null;
        notifyAll();
    }

    /** Runs {@code w}'s action, unless it was unwatched meanwhile (its fd may be another's by now). */
    private void fire(Watch w, short revents) {
        synchronized (this) {
            if (!watches.remove(w)) {
                return;
            }
        }
        if ((revents & PollCalls.POLLNVAL) != 0) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: fd {1} was closed while watched; dropped", threadName, w.fd);
            return;
        }
        try {
            w.onReady.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, threadName + ": an action failed", e);
        }
    }

    private static void set(MemorySegment fds, int i, int fd) {
        long at = i * PollCalls.POLLFD_SIZE;
        fds.set(JAVA_INT, at, fd);
        fds.set(ValueLayout.JAVA_SHORT, at + PollCalls.EVENTS, PollCalls.POLLIN);
        fds.set(ValueLayout.JAVA_SHORT, at + PollCalls.REVENTS, (short) 0);
    }

    private static short revents(MemorySegment fds, int i) {
        return fds.get(ValueLayout.JAVA_SHORT, i * PollCalls.POLLFD_SIZE + PollCalls.REVENTS);
    }

    private static void closeEventFd(int efd) {
        if (efd < 0) {
            return;
        }
        try {
            int unused = (int) PollCalls.CLOSE.invokeExact(efd);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
