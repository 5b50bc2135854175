package io.jfabric.provider.tcp;

import io.jfabric.CounterAttr;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilCounter;

/**
 * The tcp counter: provider-util's counter, whose reads drive the bound endpoints under manual progress
 * and whose waits sleep on the fabric's selector. Binding an endpoint takes a reference, so closing a
 * counter that is still bound fails with EBUSY.
 */
final class TcpCounter extends UtilCounter {
    private final TcpDomain domain;
    final ProgressList progress;

    private TcpCounter(TcpDomain domain, CounterAttr attr, ProgressList list) {
        super(attr, domain.manualProgress() ? new QueueProgress(list, domain.tcpFabric(), false) : ProgressHook.NONE);
        this.domain = domain;
        this.progress = list;
    }

    static TcpCounter open(TcpDomain domain, CounterAttr attr) {
        return new TcpCounter(domain, attr, new ProgressList());
    }

    @Override
    protected void doClose() {
        super.doClose();
        domain.childClosed(this);
    }
}
