package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketMultipleConnectTest;

import java.net.SocketAddress;
import java.util.List;

/**
 * Netty's {@link SocketMultipleConnectTest} over the named providers with an endpoint on loopback: its server binds
 * {@code NetUtil.LOCALHOST} port 0 itself, which shm, whose addresses name regions, cannot, nor verbs.
 */
public class JfabricSocketMultipleConnectTest extends SocketMultipleConnectTest {
    // the suite's hooks, one line each: every class repeats them, one per suite test it subclasses
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return JfabricSocketTestPermutation.socketOnLoopback(); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
