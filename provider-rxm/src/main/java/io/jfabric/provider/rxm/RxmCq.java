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
        bound.bind(ep, this);
    }

    void detach(RxmEndpoint ep) {
        bound.unbind(ep, this);
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
