package io.jfabric.util;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A {@link ProgressHook#block} on a native descriptor: poll(2) on one fd (a verbs completion channel, a native
 * libfabric queue's FI_WAIT_FD) together with an eventfd of its own, which {@link #wakeup} writes so that another
 * thread ends the sleep at once (fi_cq_signal, a wait set's wakeup, an interrupt, a close). poll(2) is a native
 * call: a hook that sleeps here answers {@link ProgressHook#blockParksVirtualThreads} false, so that
 * {@link WaitCoordinator} hands a virtual thread's sleep to a platform thread instead of pinning its carrier.
 *
 * <p>One sleeper at a time; a second caller parks for the slice instead, since two threads in poll(2) on one
 * eventfd would take each other's wake-ups. Nothing is allocated per sleep.
 */
public final class FdPoll implements AutoCloseable {
    /** Freed by the GC: a wakeup racing with close must never touch freed memory. */
    private final Arena arena = Arena.ofAuto();
    /** Two pollfds: the watched fd, then the wake eventfd. */
    private final MemorySegment fds;
    private final int fd;
    private final int wakeFd;
    /** Where the eventfd's count is read back to. */
    private final MemorySegment drained;
    private final ReentrantLock sleeper = new ReentrantLock();
    /** Wake-ups under way; close waits for them, so that none writes to a closed (maybe reused) descriptor. */
    private final AtomicInteger waking = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param fd the descriptor to sleep on; it stays the caller's (not closed here), and must stay open until
     *           {@link #close}
     */
    public FdPoll(int fd) {
        this.fd = fd;
        wakeFd = PollCalls.eventfd();
        fds = arena.allocate(2 * PollCalls.POLLFD_SIZE, 8);
        fds.set(JAVA_INT, 0, fd);
        fds.set(ValueLayout.JAVA_SHORT, PollCalls.EVENTS, PollCalls.POLLIN);
        // -1 if eventfd failed: poll(2) ignores it, and sleeps end by their timeout
        fds.set(JAVA_INT, PollCalls.POLLFD_SIZE, wakeFd);
        fds.set(ValueLayout.JAVA_SHORT, PollCalls.POLLFD_SIZE + PollCalls.EVENTS, PollCalls.POLLIN);
        drained = arena.allocate(JAVA_LONG);
    }

    /** The descriptor this sleeps on. */
    public int fd() {
        return fd;
    }

    /**
     * Sleeps in poll(2) until the fd is readable, a {@link #wakeup} (one that came before the call too), or
     * {@code timeoutMillis} pass. A pending wake-up is consumed.
     *
     * @return true when the fd is readable
     */
    public boolean poll(int timeoutMillis) {
        if (closed) {
            return false;
        }
        if (!sleeper.tryLock()) {
            LockSupport.parkNanos(this, timeoutMillis * 1_000_000L);
            return false;
        }
        try {
            if (closed) {
                return false;
            }
            fds.set(ValueLayout.JAVA_SHORT, PollCalls.REVENTS, (short) 0);
            fds.set(ValueLayout.JAVA_SHORT, PollCalls.POLLFD_SIZE + PollCalls.REVENTS, (short) 0);
            int ready = (int) PollCalls.POLL.invokeExact(fds, 2L, Math.max(0, timeoutMillis));
            short woken = fds.get(ValueLayout.JAVA_SHORT, PollCalls.POLLFD_SIZE + PollCalls.REVENTS);
            if (ready > 0 && (woken & PollCalls.POLLIN) != 0) {
                long unused = (long) PollCalls.READ.invokeExact(wakeFd, drained, 8L); // clears the eventfd's count
            }
            return ready > 0 && (fds.get(ValueLayout.JAVA_SHORT, PollCalls.REVENTS) & PollCalls.POLLIN) != 0;
        } catch (Throwable t) {
            throw new AssertionError(t);
        } finally {
            sleeper.unlock();
        }
    }

    /** Ends a {@link #poll} under way, or the next one to start. Safe from any thread. */
    public void wakeup() {
        if (wakeFd < 0) {
            return;
        }
        waking.incrementAndGet();
        try {
            if (!closed) {
                PollCalls.signal(wakeFd);
            }
        } finally {
            waking.decrementAndGet();
        }
    }

    /** Ends a sleep under way, waits for it to leave, then frees the eventfd. The watched fd stays open. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        wakeup();
        sleeper.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            while (waking.get() != 0) {
                Thread.onSpinWait();
            }
            if (wakeFd >= 0) {
                int unused = (int) PollCalls.CLOSE.invokeExact(wakeFd);
            }
        } catch (Throwable t) {
            throw new AssertionError(t);
        } finally {
            sleeper.unlock();
        }
    }
}
