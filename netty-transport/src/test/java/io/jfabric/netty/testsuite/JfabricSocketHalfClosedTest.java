package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketHalfClosedTest;

import java.net.SocketAddress;
import java.util.List;

/** Netty's {@link SocketHalfClosedTest} over jfabric's providers ({@link JfabricSocketTestPermutation}). */
public class JfabricSocketHalfClosedTest extends SocketHalfClosedTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return JfabricSocketTestPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return JfabricSocketTestPermutation.newSocketAddress();
    }
}
