package io.jfabric.provider.tcp;

import io.jfabric.CqAttr;
import io.jfabric.Threading;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCompletionQueue;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The tcp completion queue: provider-util's CQ, whose reads drive the bound endpoints under manual
 * progress and sleep on the fabric's selector. Endpoints reserve a slot when they accept an operation that
 * will write a completion (FI_RM_ENABLED: a full CQ makes the post return -EAGAIN instead of overrunning).
 */
final class TcpCq extends UtilCompletionQueue {
    private final TcpDomain domain;
    final ProgressList progress;

    /** Without the domain's lock: FI_THREAD_DOMAIN or narrower with manual progress, or auto progress. */
    private TcpCq(TcpDomain domain, CqAttr attr, ProgressList list) {
        super(attr, domain.manualProgress() ? new QueueProgress(list, domain.tcpFabric(), false) : ProgressHook.NONE,
                // one writer unless the progress thread may write while the application does
                domain.needsLock(), multiReader(domain), DEFAULT_MANUAL_POLL_NANOS,
                // without the lock (manual progress, FI_THREAD_DOMAIN or narrower: rxm's core domain) every write
                // happens in a progress or post call the application serialises with the reads, as shm's and
                // verbs' CQs: a release store of the tail and plain slot counts instead of a volatile store and
                // a CAS per completion
                !domain.needsLock());
        this.domain = domain;
        this.progress = list;
    }

    /** Manual progress under the domain's lock: every completion is written under it, which reads take as well. */
    private TcpCq(TcpDomain domain, CqAttr attr, ProgressList list, ReentrantLock dataLock) {
        super(attr, new QueueProgress(list, domain.tcpFabric(), false), dataLock, multiReader(domain));
        this.domain = domain;
        this.progress = list;
    }

    private static boolean multiReader(TcpDomain domain) {
        return domain.threading() == Threading.SAFE || domain.threading() == Threading.UNSPEC;
    }

    static TcpCq open(TcpDomain domain, CqAttr attr) {
        // under auto progress the fabric's thread drives every connection through its own list, which asks no
        // CQ's set, so only a manually progressed CQ watches its idle connections
        ProgressList list = new ProgressList(domain.manualProgress());
        if (domain.manualProgress() && domain.dataLock() != null) {
            return new TcpCq(domain, attr, list, domain.dataLock());
        }
        return new TcpCq(domain, attr, list);
    }

    @Override
    protected void doClose() {
        super.doClose();
        progress.close();
        domain.childClosed(this);
    }
}
