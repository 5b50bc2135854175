package io.jfabric.provider.verbs;

import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;

import java.util.concurrent.atomic.AtomicInteger;

/** Mirrors libfabric's verbs fabric: one IP subnet; its domains are the RDMA devices on it. */
final class VerbsFabric implements Fabric {
    private final FabricInfo info;
    private final AtomicInteger children = new AtomicInteger();
    private volatile boolean closed;

    VerbsFabric(FabricInfo info) {
        this.info = info.copy();
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    static VerbsDevice deviceOf(FabricInfo info) {
        if (info == null || !(info.providerData instanceof VerbsDevice d)) {
            throw new FabricException(Errno.EINVAL, "the info was not made by the verbs provider; "
                    + "pass an info from Fabrics.getInfo");
        }
        return d;
    }

    @Override
    public Domain openDomain(FabricInfo info) {
        checkOpen();
        VerbsDomain d = new VerbsDomain(this, info, deviceOf(info));
        children.incrementAndGet();
        return d;
    }

    @Override
    public PassiveEndpoint openPassiveEndpoint(FabricInfo info) {
        checkOpen();
        VerbsPassiveEndpoint p = new VerbsPassiveEndpoint(this, info, deviceOf(info));
        children.incrementAndGet();
        return p;
    }

    @Override
    public EventQueue openEq(EqAttr attr) {
        checkOpen();
        VerbsEventQueue eq = new VerbsEventQueue(this, attr);
        children.incrementAndGet();
        return eq;
    }

    void childClosed() {
        children.decrementAndGet();
    }

    private void checkOpen() {
        if (closed) {
            throw new FabricException(Errno.EBADF, "fabric is closed");
        }
    }

    @Override
    public void close() {
        if (children.get() > 0) {
            throw new FabricException(Errno.EBUSY, "fabric has " + children.get() + " open domain(s), EQ(s) or "
                    + "passive endpoint(s); close them first");
        }
        closed = true;
    }
}
