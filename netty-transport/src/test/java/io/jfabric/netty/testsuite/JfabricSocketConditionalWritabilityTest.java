package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socketOf;

/** Netty's {@link SocketConditionalWritabilityTest} over shm (when named); the other kinds run in the Connected and Rxm classes. */
public class JfabricSocketConditionalWritabilityTest extends SocketConditionalWritabilityTest {
    // shm only: the suite's 30 s timeout covers one class's combos and shm takes 12 s on the host; the other kinds run in
    // JfabricSocketConditionalWritabilityConnectedTest (tcp, libfabric:tcp, verbs) and JfabricSocketConditionalWritabilityRxmTest
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socketOf(JfabricSocketTestPermutation.Kind.SHM); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
