package io.jfabric.provider.shm;

import io.jfabric.CounterAttr;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCounter;

/**
 * provider-util's counter, holding a reference on its shm domain until it is closed (so the domain refuses to close
 * first). Under manual progress its reads and waits drive the domain's endpoints and sleep on their doorbells, as
 * the domain's CQs do; an endpoint that binds it takes a reference, so closing it while bound fails with EBUSY.
 */
final class ShmCounter extends UtilCounter {
    final ShmDomain domain;

    ShmCounter(ShmDomain domain, CounterAttr attr, ProgressHook progress) {
        super(attr, progress);
        this.domain = domain;
    }

    @Override
    protected void doClose() {
        super.doClose();
        domain.release();
    }
}
