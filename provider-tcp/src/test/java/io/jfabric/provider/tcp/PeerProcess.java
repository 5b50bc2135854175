package io.jfabric.provider.tcp;

import io.jfabric.util.Sockaddr;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Progress;

import java.net.InetSocketAddress;

/**
 * A second JVM for the failure tests: connects to {@code host port}, prints READY once connected, and then
 * keeps driving its endpoint without posting receives until it is killed.
 */
public final class PeerProcess {
    public static void main(String[] args) throws Exception {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Fabric fabric = new TcpProvider().openFabric(info);
        Domain domain = fabric.openDomain(info);
        EventQueue eq = fabric.openEq(new EqAttr());
        CompletionQueue cq = domain.openCq(CqAttr.of(CqFormat.CONTEXT, 64));
        Endpoint ep = domain.openEndpoint(info);
        ep.bind(eq);
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        ep.connect(Sockaddr.of(new InetSocketAddress(args[0], Integer.parseInt(args[1]))), null);
        EqEntry e = new EqEntry();
        while (eq.sread(e, 1000, 0) != EqEvent.CONNECTED) {
            Thread.onSpinWait();
        }
        System.out.println("READY");
        System.out.flush();
        long end = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < end) {
            cq.read(io.jfabric.CqEntry.array(1), 0);
            Thread.sleep(5);
        }
    }
}
