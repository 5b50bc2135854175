package io.jfabric.provider.shm;

import io.jfabric.Caps;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.RxAttr;
import io.jfabric.util.OpRequest;
import io.jfabric.util.UtilSharedRx;

/**
 * shm's {@code fi_srx_context}: one {@link ShmRxQueue} that the endpoints bound to it match their arriving messages
 * against, each delivering and completing what arrived on it. Posts run under the domain lock, the same one that
 * orders the endpoints' progress, at the threading levels that need it.
 */
final class ShmSharedRx extends UtilSharedRx {
    final ShmDomain domain;
    final ShmRxQueue queue;

    ShmSharedRx(ShmDomain domain, RxAttr attr) {
        super("shm shared receive context");
        this.domain = domain;
        int size = (int) Math.max(16, attr == null || attr.size == 0 ? 1024 : attr.size);
        boolean directed = attr != null && (attr.caps & Caps.DIRECTED_RECV) != 0;
        this.queue = new ShmRxQueue(size, Math.max(1, domain.unexpectedLimit), directed);
    }

    @Override
    protected int postRecv(OpRequest req) {
        boolean tagged = (req.flags & OpFlags.TAGGED) != 0;
        if (tagged && (req.flags & (OpFlags.PEEK | OpFlags.CLAIM | OpFlags.DISCARD)) != 0) {
            return -Errno.EOPNOTSUPP;
        }
        lock();
        try {
            return queue.post(req, tagged, !tagged && (req.flags & OpFlags.MULTI_RECV) != 0);
        } finally {
            unlock();
        }
    }

    @Override
    public int cancel(Object context) {
        lock();
        try {
            return queue.cq() == null ? -Errno.ENOENT : queue.cancel(context);
        } finally {
            unlock();
        }
    }

    @Override
    protected void closeShared() {
        lock();
        try {
            if (queue.cq() != null) {
                queue.cancelPosted();
            }
        } finally {
            unlock();
        }
        domain.release();
    }

    private void lock() {
        if (domain.lock != null) {
            domain.lock.lock();
        }
    }

    private void unlock() {
        if (domain.lock != null) {
            domain.lock.unlock();
        }
    }
}
