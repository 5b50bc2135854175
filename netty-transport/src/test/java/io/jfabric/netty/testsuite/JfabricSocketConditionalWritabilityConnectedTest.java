package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socketOf;

/** Netty's {@link SocketConditionalWritabilityTest} over the named connected providers (tcp, libfabric:tcp; verbs in the VM run; 12 s and 7 s on the host); shm in {@link JfabricSocketConditionalWritabilityTest}. */
public class JfabricSocketConditionalWritabilityConnectedTest extends SocketConditionalWritabilityTest {
    // the connected providers (tcp 12 s, libfabric:tcp 7 s on the host): a class of their own, so that they have the suite's 30 s budget to themselves
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socketOf(JfabricSocketTestPermutation.Kind.CONNECTED); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
