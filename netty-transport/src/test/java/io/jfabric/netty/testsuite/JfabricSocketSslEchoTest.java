package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSslEchoTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socketOver;

/** Netty's {@link SocketSslEchoTest} over jfabric's providers ({@link JfabricSocketTestPermutation}). */
public class JfabricSocketSslEchoTest extends SocketSslEchoTest {
    // shm only: its 96 parameter combinations take a minute per provider; over tcp;ofi_rxm one run hung in connect, not yet explained;
    // over the connected tcp and libfabric:tcp all 96 passed once, but took 300 s for the two on the loaded test machine
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socketOver(List.of("shm")); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
