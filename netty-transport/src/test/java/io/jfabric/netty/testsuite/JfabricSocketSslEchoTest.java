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
    // shm and tcp by default (-Djfabric.netty.testsuite.ssl names others): its 96 combinations take 30-45 s per provider
    // here (shm 38 s, tcp 33 s, libfabric:tcp 27 s, tcp;ofi_rxm 43 s, all passing), so the rest stay out to keep the module fast
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return socketOver(List.of(System.getProperty("jfabric.netty.testsuite.ssl", "shm,tcp").split(",")));
    }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }
}
