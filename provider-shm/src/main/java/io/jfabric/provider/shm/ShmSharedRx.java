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
    /** What {@link #locked} does. */
    private static final int POST = 0;
    private static final int POST_TAGGED = 1;
    private static final int CANCEL = 2;
    private static final int CLOSE = 3;
    private static final int PEEK_OR_CLAIM = 4;

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
        if (tagged && (req.flags & (OpFlags.PEEK | OpFlags.CLAIM)) != 0) {
            if ((req.flags & OpFlags.PEEK) != 0) {
                domain.progress(); // messages still in the bound endpoints' rings are seen too
            }
            return locked(PEEK_OR_CLAIM, req, null);
        }
        return locked(tagged ? POST_TAGGED : POST, req, null);
    }

    @Override
    public int cancel(Object context) {
        return locked(CANCEL, null, context);
    }

    @Override
    protected void closeShared() {
        locked(CLOSE, null, null);
        domain.release();
    }

    /** One place that takes the domain lock (where the threading level has one) around the queue's work. */
    private int locked(int what, OpRequest req, Object context) {
        domain.lockData();
        try {
            return switch (what) {
                case POST -> queue.post(req, false, (req.flags & OpFlags.MULTI_RECV) != 0);
                case POST_TAGGED -> queue.post(req, true, false);
                case PEEK_OR_CLAIM -> queue.peekOrClaim(req);
                case CANCEL -> queue.cq() == null ? -Errno.ENOENT : queue.cancel(context);
                default -> {
                    if (queue.cq() != null) {
                        queue.cancelPosted(); // no endpoint is left: the receives complete as cancelled
                    }
                    yield 0;
                }
            };
        } finally {
            domain.unlockData();
        }
    }
}
