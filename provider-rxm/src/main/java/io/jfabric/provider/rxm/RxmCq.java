package io.jfabric.provider.rxm;

import io.jfabric.CqAttr;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCompletionQueue;

import java.util.ArrayList;
import java.util.List;

/**
 * ofi_rxm's completion queue: provider-util's CQ whose reads first drive the progress of the rxm
 * endpoints bound to it (libfabric's rxm_ep_progress as cq->progress), under the domain lock. All
 * writes happen under that lock, so one writer at a time; reads may come from several threads.
 */
final class RxmCq extends UtilCompletionQueue {
    private final RxmDomain domain;
    private final Hook hook;

    /** The progress hook: one per CQ, over a snapshot array of bound endpoints. */
    private static final class Hook implements ProgressHook {
        private final Object lock;
        private final List<RxmEndpoint> endpoints = new ArrayList<>();
        private volatile RxmEndpoint[] snapshot = new RxmEndpoint[0];

        Hook(Object lock) {
            this.lock = lock;
        }

        /**
         * The queue this hook drives: while it holds completions a read takes the next one without driving
         * the endpoints again. Each drive polls every core connection, so with thousands of peers a read per
         * completion that drove them all made draining a backlog quadratic.
         */
        private UtilCompletionQueue cq;

        @Override
        public int progress() {
            RxmEndpoint[] eps = snapshot;
            if (eps.length == 0 || (cq != null && cq.size() > 0)) {
                return 0;
            }
            synchronized (lock) {
                for (RxmEndpoint ep : eps) {
                    ep.progress();
                }
            }
            return 0;
        }
    }

    private RxmCq(RxmDomain domain, CqAttr attr, Hook hook) {
        super(attr == null ? new CqAttr() : attr, hook, false, true);
        this.domain = domain;
        this.hook = hook;
    }

    static RxmCq open(RxmDomain domain, CqAttr attr) {
        Hook hook = new Hook(domain.lock);
        RxmCq cq = new RxmCq(domain, attr, hook);
        hook.cq = cq;
        return cq;
    }

    void attach(RxmEndpoint ep) {
        synchronized (domain.lock) {
            if (!hook.endpoints.contains(ep)) {
                hook.endpoints.add(ep);
                hook.snapshot = hook.endpoints.toArray(new RxmEndpoint[0]);
                acquire();
            }
        }
    }

    void detach(RxmEndpoint ep) {
        synchronized (domain.lock) {
            if (hook.endpoints.remove(ep)) {
                hook.snapshot = hook.endpoints.toArray(new RxmEndpoint[0]);
                release();
            }
        }
    }

    /** An error completion; {@code err} positive, {@code olen} the bytes cut off (ETRUNC). */
    void error(Object context, long flags, long len, long olen, int err, long tag, long data) {
        writeError(context, flags, len, 0, data, tag, olen, err, -err, null);
    }

    /** An error completion with provider detail in err_data (the peer's address for connection failures). */
    void error(Object context, long flags, int err, byte[] errData) {
        writeError(context, flags, 0, 0, 0, 0, 0, err, -err, errData);
    }

    @Override
    protected void doClose() {
        domain.release();
    }
}
