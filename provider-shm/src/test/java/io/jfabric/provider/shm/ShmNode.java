package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Progress;

import java.util.List;

/**
 * One shm endpoint with its fabric, domain, AV, a single TAGGED-format CQ and an EQ, opened through
 * discovery. The EQ is bound so that every test (the allocation ones included) runs with the peer watch on.
 */
final class ShmNode implements AutoCloseable {

    final FabricInfo info;
    final Fabric fabric;
    final Domain domain;
    final CompletionQueue cq;
    final AddressVector av;
    final EventQueue eq;
    final Endpoint ep;

    ShmNode(Progress progress) {
        this(progress, 0);
    }

    /** {@code rxSize}: the endpoint's rx_attr size, 0 for discovery's. */
    ShmNode(Progress progress, long rxSize) {
        FabricInfo hints = FabricInfo.hints();
        hints.caps = Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.SOURCE | Caps.DIRECTED_RECV;
        hints.epAttr.type = EndpointType.RDM;
        hints.fabricAttr.provName = "shm";
        hints.domainAttr.dataProgress = progress;
        List<FabricInfo> infos = Fabrics.getInfo(hints);
        if (infos.isEmpty()) {
            throw new IllegalStateException("discovery found no shm info");
        }
        info = infos.get(0);
        if (rxSize > 0) {
            info.rxAttr.size = rxSize;
        }
        fabric = Fabrics.openFabric(info);
        eq = fabric.openEq(EqAttr.defaults());
        domain = fabric.openDomain(info);
        cq = domain.openCq(CqAttr.of(CqFormat.TAGGED, 4096));
        av = domain.openAv(AvAttr.of(AvType.TABLE));
        ep = domain.openEndpoint(info);
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        ep.bind(av);
        ep.bind(eq);
        ep.enable();
    }

    ShmNode() {
        this(Progress.MANUAL);
    }

    byte[] name() {
        return ep.getName();
    }

    long insert(ShmNode other) {
        return av.insert(other.name());
    }

    /**
     * Reads one completion within {@code millis}: returns 1 with {@code out} filled, -EAVAIL with
     * {@code err} filled, or -EAGAIN on timeout.
     */
    int next(CqEntry out, CqErrEntry err, long millis) {
        CqEntry[] one = {out};
        long deadline = System.nanoTime() + millis * 1_000_000L;
        do {
            int rc = cq.readFrom(one, 1);
            if (rc == 1) {
                return 1;
            }
            if (rc == -Errno.EAVAIL) {
                cq.readError(err, 0);
                return rc;
            }
        } while (System.nanoTime() < deadline);
        return -Errno.EAGAIN;
    }

    /** Drives progress of this node for {@code millis}. */
    void progressFor(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        CqEntry[] none = new CqEntry[0];
        while (System.nanoTime() < deadline) {
            cq.read(none, 0);
        }
    }

    @Override
    public void close() {
        ep.close();
        av.close();
        cq.close();
        domain.close();
        eq.close();
        fabric.close();
    }
}
