package io.jfabric.util;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricObject;
import io.jfabric.WaitAttr;
import io.jfabric.WaitObj;
import io.jfabric.WaitSet;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * libfabric's util wait set ({@code prov/util/src/util_wait.c}, fi_poll(3)) for every provider: the
 * completion queues, event queues and counters opened with FI_WAIT_SET and this set join it, from any
 * fabric, the libfabric provider's native queues included (their hooks look at the native queue and sleep on
 * its FI_WAIT_FD descriptor). A member that gets an event wakes the set's waiters; {@link #await} drives the members' manual
 * progress and sleeps in a {@link WaitCoordinator}, on the members' event source when they share one.
 * Closing the set while members remain fails with EBUSY (fi_poll(3)).
 */
public final class UtilWaitSet extends UtilFabricObject implements WaitSet {
    /** How long a waiter over members of several providers parks between progress calls. */
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final WaitAttr attr;
    private final WaitCoordinator waiters = new WaitCoordinator(true, POLL_NANOS);
    private final WaitCoordinator.Readiness readiness = this::eventOrWakeup;
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private final Object membership = new Object();
    private volatile Waitable[] members = new Waitable[0];
    private volatile ProgressHook progress = ProgressHook.NONE;

    public UtilWaitSet(WaitAttr attr) {
        super("wait set");
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "wait set attributes are null; pass WaitAttr.defaults()");
        }
        if (attr.waitObj == WaitObj.NONE || attr.waitObj == WaitObj.SET) {
            throw new FabricException(Errno.EINVAL, "a wait set cannot use wait object " + attr.waitObj.cName()
                    + "; use FI_WAIT_UNSPEC, FI_WAIT_FD, FI_WAIT_MUTEX_COND or FI_WAIT_YIELD");
        }
        if (attr.waitObj == WaitObj.POLLFD) {
            throw new FabricException(Errno.ENOSYS, "wait object FI_WAIT_POLLFD is not supported: a Java wait set "
                    + "exposes no descriptors; use FI_WAIT_UNSPEC");
        }
        if (attr.flags != 0) {
            throw new FabricException(Errno.EINVAL, "wait set flags must be 0 (fi_poll(3)), not " + attr.flags);
        }
        this.attr = attr;
    }

    /**
     * The wait set a queue opened with {@code waitObj} and {@code set} joins: null unless the wait object is
     * FI_WAIT_SET.
     *
     * @throws FabricException ENOSYS for FI_WAIT_POLLFD or a set that is not a Java wait set, EINVAL for
     *                         FI_WAIT_SET without a set, EBADF for a closed set
     */
    public static UtilWaitSet joinable(String what, WaitObj waitObj, WaitSet set) {
        if (waitObj == WaitObj.POLLFD) {
            throw new FabricException(Errno.ENOSYS, what + " wait object FI_WAIT_POLLFD is not supported; use "
                    + "FI_WAIT_SET with a WaitSet, or FI_WAIT_UNSPEC");
        }
        if (waitObj != WaitObj.SET) {
            return null;
        }
        if (set == null) {
            throw new FabricException(Errno.EINVAL, what + " wait object FI_WAIT_SET needs attr.waitSet: open one "
                    + "with Fabric.openWait");
        }
        if (!(set instanceof UtilWaitSet u)) {
            throw new FabricException(Errno.ENOSYS, what + ": " + set + " is not a Java provider's wait set; "
                    + "open the wait set from a Java provider's fabric");
        }
        u.checkOpen("join");
        return u;
    }

    /**
     * A queue joins (its constructor; a queue of another module, such as the libfabric bridge's, too); the set
     * cannot close until it {@linkplain #leave leaves}.
     */
    public void join(Waitable member) {
        synchronized (membership) {
            acquire();
            Waitable[] m = Arrays.copyOf(members, members.length + 1);
            m[m.length - 1] = member;
            setMembers(m);
        }
        memberEvent();
    }

    /** A member closed. */
    public void leave(Waitable member) {
        synchronized (membership) {
            Waitable[] rest = Arrays.stream(members).filter(w -> w != member).toArray(Waitable[]::new);
            if (rest.length < members.length) {
                setMembers(rest);
                release();
            }
        }
    }

    private void setMembers(Waitable[] m) {
        members = m;
        progress = MemberProgress.of(m);
    }

    /** How many queues are members. */
    public int size() {
        return members.length;
    }

    /** A member has published an event: wake the waiters. Allocation-free; cheap when nobody waits. */
    void memberEvent() {
        waiters.wake(progress);
    }

    @Override
    public int await(int timeoutMillis) {
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        for (;;) {
            long epoch = waiters.epoch();
            if (wakeupPending.getAndSet(false)) {
                return 0;
            }
            if (isClosed()) {
                return -Errno.EBADF;
            }
            ProgressHook hook = progress;
            hook.progress();
            if (anyMemberHasEvents()) {
                return 0;
            }
            long remaining = timeoutMillis < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
            int rc = remaining <= 0 ? -Errno.ETIMEDOUT
                    : waiters.await(readiness, hook, epoch, remaining) ? 0 : -Errno.EINTR;
            if (rc != 0) {
                return rc;
            }
        }
    }

    @Override
    public WaitAttr attr() {
        return attr;
    }

    /**
     * The flag is set before the waiter count is read and a waiter counts itself in before it checks the flag, so
     * a wakeup with nobody waiting skips the lock and the provider's wake and still ends the next wait at once.
     */
    @Override
    public void wakeup() {
        wakeupPending.set(true);
        if (waiters.hasWaiters()) {
            waiters.wakeAll(progress);
        }
    }

    @Override
    public boolean hasEvents() {
        progress.progress();
        return anyMemberHasEvents();
    }

    private boolean anyMemberHasEvents() {
        for (Waitable w : members) {
            if (w.hasEvents()) {
                return true;
            }
        }
        return false;
    }

    private boolean eventOrWakeup() {
        return wakeupPending.get() || anyMemberHasEvents();
    }

    /**
     * fi_trywait over Java providers' objects: 0 when blocking on them is safe, -EAGAIN when one has events
     * (after driving its progress once), -EINVAL for a queue without a wait object or a foreign object.
     */
    public static int trywait(FabricObject... objects) {
        if (objects == null || objects.length == 0) {
            return -Errno.EINVAL;
        }
        for (FabricObject o : objects) {
            if (o instanceof UtilWaitSet set) {
                if (set.hasEvents()) {
                    return -Errno.EAGAIN;
                }
            } else if (o instanceof Waitable w) {
                if (w.waitObj() == WaitObj.NONE) {
                    return -Errno.EINVAL;
                }
                if (!w.trywait()) {
                    return -Errno.EAGAIN;
                }
            } else {
                return -Errno.EINVAL;
            }
        }
        return 0;
    }

    @Override
    protected void doClose() {
        waiters.wakeAll(progress);
    }

    @Override
    public String toString() {
        return "UtilWaitSet[" + attr.waitObj.cName() + ", members=" + members.length + "]";
    }
}
