package io.jfabric.provider.rxm;

import io.jfabric.CqAttr;
import io.jfabric.util.UtilCompletionQueue;

/**
 * ofi_rxm's completion queue: provider-util's CQ whose reads first drive the progress of the rxm
 * endpoints bound to it ({@link BoundEndpoints}). All writes happen under the domain lock, so one writer at
 * a time; reads may come from several threads.
 */
final class RxmCq extends UtilCompletionQueue {
    private final RxmDomain domain;
    private final BoundEndpoints bound;

    private RxmCq(RxmDomain domain, CqAttr attr, BoundEndpoints bound) {
        super(attr == null ? new CqAttr() : attr, bound, false, true);
        this.domain = domain;
        this.bound = bound;
    }

    static RxmCq open(RxmDomain domain, CqAttr attr) {
        BoundEndpoints bound = new BoundEndpoints(domain.lock);
        RxmCq cq = new RxmCq(domain, attr, bound);
        bound.cq = cq;
        return cq;
    }

    void attach(RxmEndpoint ep) {
        bound.bind(ep);
    }

    void detach(RxmEndpoint ep) {
        bound.unbind(ep);
    }

    @Override
    protected void doClose() {
        super.doClose(); // wakes blocked readers and leaves its wait set
        domain.release();
    }
}
