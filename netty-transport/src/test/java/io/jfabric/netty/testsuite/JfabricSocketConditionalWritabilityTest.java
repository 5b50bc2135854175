package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socketOver;

/** Netty's {@link SocketConditionalWritabilityTest} over jfabric's providers ({@link JfabricSocketTestPermutation}). */
public class JfabricSocketConditionalWritabilityTest extends SocketConditionalWritabilityTest {
    // shm only: the suite's 30 s timeout covers one class's combos and shm takes 12 s here; the other providers run in
    // JfabricSocketConditionalWritabilityConnectedTest (tcp, libfabric:tcp) and JfabricSocketConditionalWritabilityRxmTest
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socketOver(List.of("shm")); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
