package io.jfabric.provider.rxm;

import io.jfabric.CounterAttr;
import io.jfabric.util.UtilCounter;

/**
 * ofi_rxm's counter: provider-util's counter whose reads and waits first drive the progress of the rxm
 * endpoints bound to it ({@link BoundEndpoints}), as libfabric's rxm counters do. Binding takes a reference,
 * so closing a counter that is still bound fails with EBUSY.
 */
final class RxmCounter extends UtilCounter {
    private final RxmDomain domain;
    private final BoundEndpoints bound;

    private RxmCounter(RxmDomain domain, CounterAttr attr, BoundEndpoints bound) {
        super(attr == null ? new CounterAttr() : attr, bound);
        this.domain = domain;
        this.bound = bound;
    }

    static RxmCounter open(RxmDomain domain, CounterAttr attr) {
        return new RxmCounter(domain, attr, new BoundEndpoints(domain.lock));
    }

    void attach(RxmEndpoint ep) {
        bound.bind(ep);
    }

    void detach(RxmEndpoint ep) {
        bound.unbind(ep);
    }

    @Override
    protected void doClose() {
        super.doClose();
        domain.release();
    }
}
