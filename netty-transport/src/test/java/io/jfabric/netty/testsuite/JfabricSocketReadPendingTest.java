package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketReadPendingTest;

import java.net.SocketAddress;
import java.util.List;

/** Netty's {@link SocketReadPendingTest} over jfabric's providers ({@link JfabricSocketTestPermutation}). */
public class JfabricSocketReadPendingTest extends SocketReadPendingTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return JfabricSocketTestPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return JfabricSocketTestPermutation.newSocketAddress();
    }
}
