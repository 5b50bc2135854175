package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.testsuite.transport.socket.SocketAutoReadTest;

import java.net.SocketAddress;
import java.util.List;

/** Netty's {@link SocketAutoReadTest} over jfabric's providers ({@link JfabricSocketTestPermutation}). */
public class JfabricSocketAutoReadTest extends SocketAutoReadTest {
    @Override
    protected List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return JfabricSocketTestPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return JfabricSocketTestPermutation.newSocketAddress();
    }
}
