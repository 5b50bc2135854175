package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socketOf;

/** Netty's {@link SocketConditionalWritabilityTest} over the named ofi_rxm providers (tcp;ofi_rxm, 17 s on the host; verbs;ofi_rxm in the VM run); shm in {@link JfabricSocketConditionalWritabilityTest}. */
public class JfabricSocketConditionalWritabilityRxmTest extends SocketConditionalWritabilityTest {
    // the ofi_rxm providers (tcp;ofi_rxm 17 s on the host): a class of their own, so that they have the suite's 30 s budget to themselves
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socketOf(JfabricSocketTestPermutation.Kind.RXM); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
