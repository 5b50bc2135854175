package io.jfabric.util;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.SharedRxContext;
import io.jfabric.TaggedMsg;

import java.lang.foreign.MemorySegment;

/**
 * A shared receive context's entry points (libfabric's util_srx.c front): every receive form is checked and turned
 * into an {@link OpRequest} for the provider's {@link #postRecv} hook, as {@link UtilEndpoint} does for an endpoint,
 * and the endpoints bound to it are counted so that closing it under them fails with EBUSY. The provider keeps the
 * posted receives on one {@link TagMatcher} that every bound endpoint matches its arriving messages against.
 *
 * <p>No lock here and nothing allocated once warm: the request is the posting thread's own, and the provider
 * serializes the matcher as its threading level needs.
 */
public abstract class UtilSharedRx implements SharedRxContext {
    private final ThreadLocal<OpRequest> requests = ThreadLocal.withInitial(
            () -> new OpRequest(Thread.currentThread()));
    private final String what;
    private int boundEndpoints;
    private boolean closed;

    /** @param what names the context in exceptions ("shm shared receive context") */
    protected UtilSharedRx(String what) {
        this.what = what;
    }

    /** A receive or tagged receive ({@code op.flags} holds FI_TAGGED) posted to the shared context. */
    protected abstract int postRecv(OpRequest op);

    /** The flags of a plain receive call: the context's default receive op_flags. */
    protected long rxFlags() {
        return 0;
    }

    /** Releases what the provider holds once no endpoint is bound (the posted receives are dropped). */
    protected abstract void closeShared();

    /**
     * Counts an endpoint binding the context (fi_ep_bind).
     *
     * @throws FabricException EBADF once the context is closed
     */
    public final synchronized void attach() {
        if (closed) {
            throw new FabricException(Errno.EBADF, "cannot bind " + what + ": it is closed");
        }
        boundEndpoints++;
    }

    /** An endpoint bound to the context closed. */
    public final synchronized void detach() {
        boundEndpoints--;
    }

    @Override
    public final void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (boundEndpoints > 0) {
                throw new FabricException(Errno.EBUSY, "cannot close " + what + ": " + boundEndpoints
                        + " endpoint(s) still bound to it; close them first");
            }
            closed = true;
        }
        closeShared();
    }

    private int post(OpRequest r) {
        try {
            return postRecv(r);
        } finally {
            r.clear();
        }
    }

    @Override
    public final int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object context) {
        return post(requests.get().one(buf, desc).set(srcAddr, 0, 0, 0, context, rxFlags()));
    }

    @Override
    public final int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        return UtilEndpoint.badVector(iov, desc, count) ? -Errno.EINVAL
                : post(requests.get().vector(iov, desc, count).set(srcAddr, 0, 0, 0, context, rxFlags()));
    }

    @Override
    public final int recvmsg(Msg msg, long flags) {
        return msg == null || UtilEndpoint.badVector(msg.iov, msg.desc, msg.iovCount) ? -Errno.EINVAL
                : post(requests.get().vector(msg.iov, msg.desc, msg.iovCount).set(msg.addr, 0, 0, 0, msg.context,
                        flags));
    }

    @Override
    public final int trecv(MemorySegment buf, MemoryRegion desc, long srcAddr, long tag, long ignore,
                           Object context) {
        return post(requests.get().one(buf, desc).set(srcAddr, tag, ignore, 0, context, rxFlags() | OpFlags.TAGGED));
    }

    @Override
    public final int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag,
                            long ignore, Object context) {
        return UtilEndpoint.badVector(iov, desc, count) ? -Errno.EINVAL
                : post(requests.get().vector(iov, desc, count).set(srcAddr, tag, ignore, 0, context,
                        rxFlags() | OpFlags.TAGGED));
    }

    @Override
    public final int trecvmsg(TaggedMsg msg, long flags) {
        return msg == null || UtilEndpoint.badVector(msg.iov, msg.desc, msg.iovCount) ? -Errno.EINVAL
                : post(requests.get().vector(msg.iov, msg.desc, msg.iovCount).set(msg.addr, msg.tag, msg.ignore, 0,
                        msg.context, flags | OpFlags.TAGGED));
    }

    @Override
    public String toString() {
        return what + "[bound=" + boundEndpoints + (closed ? ", closed" : "") + "]";
    }
}
