package io.jfabric.provider.rxm;

import io.jfabric.CqAttr;
import io.jfabric.util.UtilCompletionQueue;

/**
 * ofi_rxm's completion queue: provider-util's CQ whose reads first drive the progress of the rxm
 * endpoints bound to it ({@link BoundEndpoints}). All writes happen under the domain lock, which reads hold
 * across their progress and drain, so the queue takes no lock of its own; at FI_THREAD_DOMAIN there is no lock,
 * and every write happens in a call the application serialises with the reads.
 */
final class RxmCq extends UtilCompletionQueue {
    private final RxmDomain domain;
    private final BoundEndpoints bound;

    /** At FI_THREAD_DOMAIN: one writer and one reader at a time, both the application's serialised calls. */
    private RxmCq(RxmDomain domain, CqAttr attr, BoundEndpoints bound, boolean serialized) {
        super(attr == null ? new CqAttr() : attr, bound, false, false, DEFAULT_MANUAL_POLL_NANOS, serialized);
        this.domain = domain;
        this.bound = bound;
    }

    /** Under the domain's lock, which every write holds and every read takes across its progress. */
    private RxmCq(RxmDomain domain, CqAttr attr, BoundEndpoints bound) {
        super(attr == null ? new CqAttr() : attr, bound, domain.guard, true);
        this.domain = domain;
        this.bound = bound;
    }

    static RxmCq open(RxmDomain domain, CqAttr attr) {
        BoundEndpoints bound = new BoundEndpoints(domain.lock);
        RxmCq cq = domain.guard == null ? new RxmCq(domain, attr, bound, true) : new RxmCq(domain, attr, bound);
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
