package io.jfabric.util;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricObject;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Base of provider objects that need libfabric's fid reference counting ({@code util_fabric},
 * {@code util_domain}, {@code ofi_atomic32 ref} in every util object): children and bound users
 * {@link #acquire()} their parent and {@link #release()} it when they close, so closing a parent
 * that is still in use throws FabricException(EBUSY) instead of pulling the rug from under them.
 * Close is idempotent. Subclasses implement {@link #doClose()} and call {@link #checkOpen} on the
 * control path.
 */
public abstract class UtilFabricObject implements FabricObject {
    private final AtomicInteger refs = new AtomicInteger();
    private volatile boolean closed;
    private final String what;

    /** @param what how error messages name this object ("tcp domain", "CQ") */
    protected UtilFabricObject(String what) {
        this.what = what;
    }

    /** A child opened from, or a user bound to, this object: close now fails with EBUSY until {@link #release()}. */
    public void acquire() {
        synchronized (this) {
            checkOpen("use");
            refs.incrementAndGet();
        }
    }

    /** The child or user went away. */
    public void release() {
        if (refs.decrementAndGet() < 0) {
            refs.incrementAndGet();
            throw new IllegalStateException(what + ": release() without acquire()");
        }
    }

    /** How many children or users hold this object. */
    public int references() {
        return refs.get();
    }

    public boolean isClosed() {
        return closed;
    }

    /** Throws FabricException(EBADF) when closed; {@code action} names what was attempted. */
    protected void checkOpen(String action) {
        if (closed) {
            throw new FabricException(Errno.EBADF, "cannot " + action + " " + what + ": it is closed");
        }
    }

    @Override
    public final void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            int n = refs.get();
            if (n > 0) {
                throw new FabricException(Errno.EBUSY, "cannot close " + what + ": " + n
                        + " object(s) opened from or bound to it are still open; close them first");
            }
            closed = true;
        }
        try {
            doClose();
        } catch (RuntimeException | Error e) {
            // fi_close failed (a layered domain whose core still has regions): the object stays open and usable
            synchronized (this) {
                closed = false;
            }
            throw e;
        }
    }

    /**
     * Releases resources; called after the reference check passed, once unless it throws: then the object
     * stays open and a later close calls it again, so throw before releasing anything.
     */
    protected abstract void doClose();

    /** Name used in messages. */
    protected String what() {
        return what;
    }
}
