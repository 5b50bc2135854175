package io.jfabric.provider.tcp;

import io.jfabric.EndpointType;
import io.jfabric.EqAttr;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.PassiveEndpoint;
import io.jfabric.util.Sockaddr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A wildcard source (FI_SOURCE with a service alone, or node 0.0.0.0) gives first an info whose source is the
 * wildcard, as libfabric's does, and a passive endpoint opened from it takes connections on every interface;
 * the per-interface infos follow it.
 */
@Timeout(30)
class WildcardSourceTest {
    private static FabricInfo hints() {
        FabricInfo h = FabricInfo.hints();
        h.epAttr.type = EndpointType.MSG;
        return h;
    }

    @Test
    void theFirstInfoKeepsTheWildcardAndTheInterfacesFollow() throws Exception {
        for (String node : new String[]{null, "0.0.0.0"}) {
            List<FabricInfo> infos = new TcpProvider().getInfo(Fabrics.API_VERSION, node, "7001", Fabrics.SOURCE,
                    hints());
            assertTrue(infos.size() >= 2, String.valueOf(infos.size()));
            InetSocketAddress first = Sockaddr.toInet(infos.getFirst().srcAddr);
            assertTrue(first.getAddress().isAnyLocalAddress(), "node " + node + ": " + first);
            assertEquals(7001, first.getPort());
            for (FabricInfo i : infos.subList(1, infos.size())) {
                InetSocketAddress a = Sockaddr.toInet(i.srcAddr);
                assertFalse(a.getAddress().isAnyLocalAddress(), "node " + node + ": " + a);
                assertEquals(7001, a.getPort());
            }
        }
        // a named interface keeps its own source only
        for (FabricInfo i : new TcpProvider().getInfo(Fabrics.API_VERSION, "127.0.0.1", "7001", Fabrics.SOURCE,
                hints())) {
            assertEquals(new InetSocketAddress(LocalAddress.LOOPBACK_V4, 7001), Sockaddr.toInet(i.srcAddr));
        }
    }

    @Test
    void aPassiveEndpointOnTheWildcardTakesConnectionsOnEveryInterface() throws Exception {
        FabricInfo info = new TcpProvider().getInfo(Fabrics.API_VERSION, null, "0", Fabrics.SOURCE, hints())
                .getFirst();
        List<InetAddress> targets = new ArrayList<>();
        for (LocalAddress a : LocalAddress.list()) {
            if (a.address() instanceof Inet4Address) {
                targets.add(a.address());
            }
        }
        assertTrue(targets.contains(LocalAddress.LOOPBACK_V4), targets.toString());
        try (Fabric fabric = new TcpProvider().openFabric(info);
             EventQueue eq = fabric.openEq(new EqAttr());
             PassiveEndpoint pep = fabric.openPassiveEndpoint(info)) {
            pep.bind(eq);
            pep.listen();
            int port = Sockaddr.toInet(pep.getName()).getPort();
            assertTrue(port > 0);
            for (InetAddress a : targets) {
                // the kernel completes the handshake into the listen backlog: connecting is enough to show it
                try (SocketChannel ch = SocketChannel.open(new InetSocketAddress(a, port))) {
                    assertTrue(ch.isConnected(), a.toString());
                }
            }
        }
    }
}
