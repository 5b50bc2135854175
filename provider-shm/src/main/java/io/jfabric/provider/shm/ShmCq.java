package io.jfabric.provider.shm;

import io.jfabric.CqAttr;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCompletionQueue;

import java.util.concurrent.locks.ReentrantLock;

/** provider-util's CQ, holding a reference on its shm domain until it is closed (so the domain refuses to close first). */
final class ShmCq extends UtilCompletionQueue {

    private final ShmDomain domain;

    ShmCq(ShmDomain domain, CqAttr attr, ProgressHook progress, boolean multiWriter,
                       boolean multiReader, boolean serialized) {
        super(attr, progress, multiWriter, multiReader, DEFAULT_MANUAL_POLL_NANOS, serialized);
        this.domain = domain;
    }

    /** Completions written under the domain's lock ({@link UtilCompletionQueue}'s guarded form). */
    ShmCq(ShmDomain domain, CqAttr attr, ProgressHook progress, ReentrantLock domainLock, boolean multiReader) {
        super(attr, progress, domainLock, multiReader);
        this.domain = domain;
    }

    @Override
    protected void doClose() {
        super.doClose();
        domain.release();
    }
}
