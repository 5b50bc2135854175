package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketMultipleConnectTest;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.Kind;
import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socketOf;

/**
 * Netty's {@link SocketMultipleConnectTest} over the named providers with host-and-port addresses: its server binds
 * {@code NetUtil.LOCALHOST} port 0 itself, which shm, whose addresses name regions, cannot.
 */
public class JfabricSocketMultipleConnectTest extends SocketMultipleConnectTest {
    // the suite's hooks, one line each: sixteen classes repeat them, one per suite test they subclass
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socketOf(Kind.RXM, Kind.CONNECTED); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
