package io.jfabric.provider.rxm;

import io.jfabric.Caps;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.RxAttr;
import io.jfabric.util.OpRequest;
import io.jfabric.util.TagMatcher;
import io.jfabric.util.UtilCompletionQueue;
import io.jfabric.util.UtilSharedRx;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * ofi_rxm's {@code fi_srx_context} (libfabric's rxm uses util_srx the same way): one {@link TagMatcher} that the
 * endpoints bound to it match their arriving messages against, each delivering and completing what arrived on it.
 * A receive posted here is taken in by a bound endpoint that is enabled, as if posted on it, and so is a cancel:
 * the receive's entry and its cancel's completion go through that endpoint. Everything runs under the domain lock.
 */
final class RxmSharedRx extends UtilSharedRx {
    final RxmDomain domain;
    final TagMatcher matcher;
    /** The endpoints bound, in binding order (under the domain lock). */
    private final List<RxmEndpoint> endpoints = new ArrayList<>();
    /** The receive CQ of the endpoint that took the last post: where receives still posted at close complete. */
    private UtilCompletionQueue lastCq;
    /** Bounce-buffer memory of closed endpoints, which unexpected messages here may still point into. */
    private final List<Arena> endpointSlabs = new ArrayList<>();

    RxmSharedRx(RxmDomain domain, RxAttr attr) {
        super("ofi_rxm shared receive context");
        this.domain = domain;
        this.matcher = new TagMatcher(attr != null && (attr.caps & Caps.DIRECTED_RECV) != 0, 16384);
    }

    void add(RxmEndpoint ep) {
        domain.lock.lock();
        try {
            endpoints.add(ep);
        } finally {
            domain.lock.unlock();
        }
        attach();
    }

    /** Frees {@code slabs} (a closed endpoint's bounce buffers) when this context closes. */
    void freeAtClose(Arena slabs) {
        domain.lock.lock();
        try {
            endpointSlabs.add(slabs);
        } finally {
            domain.lock.unlock();
        }
    }

    /** Frees an endpoint's bounce-buffer memory; a failure only leaves it to the process's end. */
    static void closeArena(Arena arena) {
        try {
            arena.close();
        } catch (RuntimeException e) {
            io.jfabric.util.FabricLog.logger("ofi_rxm").log(System.Logger.Level.DEBUG, "freeing bounce buffers: {0}",
                    e.getMessage());
        }
    }

    void remove(RxmEndpoint ep) {
        domain.lock.lock();
        try {
            endpoints.remove(ep);
        } finally {
            domain.lock.unlock();
        }
        detach();
    }

    /** The first bound endpoint that takes posts, or null before any is enabled. */
    private RxmEndpoint poster() {
        for (int i = 0; i < endpoints.size(); i++) {
            RxmEndpoint ep = endpoints.get(i);
            if (ep.acceptsPosts()) {
                return ep;
            }
        }
        return null;
    }

    @Override
    protected int postRecv(OpRequest op) {
        domain.lock.lock();
        try {
            RxmEndpoint ep = poster();
            if (ep == null) {
                return -Errno.EOPBADSTATE;
            }
            lastCq = ep.rxCq();
            return ep.postRecv(op);
        } finally {
            domain.lock.unlock();
        }
    }

    @Override
    public int cancel(Object context) {
        domain.lock.lock();
        try {
            RxmEndpoint ep = poster();
            return ep == null ? -Errno.ENOENT : ep.cancel(context);
        } finally {
            domain.lock.unlock();
        }
    }

    /**
     * No endpoint is left: the receives still posted complete with ECANCELED on the CQ of the endpoint that took the
     * last post (their buffers are the application's again).
     */
    @Override
    protected void closeShared() {
        domain.lock.lock();
        try {
            TagMatcher.Recv n;
            while ((n = matcher.removeFirstPosted()) != null) {
                if (lastCq != null) {
                    lastCq.writeError(n.context, OpFlags.RECV | (n.tagged ? OpFlags.TAGGED : OpFlags.MSG),
                            Errno.ECANCELED);
                }
                matcher.free(n);
            }
            for (Arena a : endpointSlabs) {
                closeArena(a);
            }
            endpointSlabs.clear();
        } finally {
            domain.lock.unlock();
        }
        domain.release();
    }
}
