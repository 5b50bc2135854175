package io.jfabric.netty.testsuite;

import io.jfabric.netty.JfabricAddress;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketAddressesTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socket;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Netty's {@link SocketAddressesTest} over jfabric's providers: both ends' addresses are endpoint names. */
public class JfabricSocketAddressesTest extends SocketAddressesTest {
    // the suite's hooks, one line each: every class repeats them, one per suite test it subclasses
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socket(); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }

    @Override
    protected void assertAddress(SocketAddress address) {
        JfabricAddress a = assertInstanceOf(JfabricAddress.class, address);
        assertNotNull(a.name(), () -> a + " names no endpoint");
    }
}
