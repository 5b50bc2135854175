package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSslGreetingTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socket;

/** Netty's {@link SocketSslGreetingTest} over jfabric's providers ({@link JfabricSocketTestPermutation}). */
public class JfabricSocketSslGreetingTest extends SocketSslGreetingTest {
    // the suite's hooks, one line each: every class repeats them, one per suite test it subclasses
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socket(); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
