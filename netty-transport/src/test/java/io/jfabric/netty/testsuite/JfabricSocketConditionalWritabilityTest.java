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
    // shm only: its 30 s timeout covers all providers and shm alone takes 15 s here (tcp and libfabric:tcp together exceeded it)
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socketOver(List.of("shm")); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
