package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socketOver;

/** Netty's {@link SocketConditionalWritabilityTest} over tcp;ofi_rxm (17 s here); shm in {@link JfabricSocketConditionalWritabilityTest}. */
public class JfabricSocketConditionalWritabilityRxmTest extends SocketConditionalWritabilityTest {
    // over tcp;ofi_rxm (17 s here): a class of its own, so that it has the suite's 30 s budget to itself
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socketOver(List.of("tcp;ofi_rxm")); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
