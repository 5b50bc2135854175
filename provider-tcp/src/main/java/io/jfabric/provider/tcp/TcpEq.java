package io.jfabric.provider.tcp;

import io.jfabric.EqAttr;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilEventQueue;

/**
 * The tcp event queue: provider-util's EQ, whose reads drive the connection setup of bound endpoints and
 * passive endpoints under manual control progress.
 */
final class TcpEq extends UtilEventQueue {
    private final TcpFabric fabric;
    final ProgressList progress;

    private TcpEq(TcpFabric fabric, EqAttr attr, ProgressList list, QueueProgress hook) {
        super(attr, hook != null ? hook : ProgressHook.NONE);
        this.fabric = fabric;
        this.progress = list;
    }

    static TcpEq open(TcpFabric fabric, EqAttr attr) {
        ProgressList list = new ProgressList();
        QueueProgress hook = fabric.manualControl() ? new QueueProgress(list, fabric, true) : null;
        TcpEq eq = new TcpEq(fabric, attr, list, hook);
        if (hook != null) {
            hook.servesEventsOf(eq);
        }
        return eq;
    }

    @Override
    protected void doClose() {
        super.doClose();
        fabric.childClosed(this);
    }
}
