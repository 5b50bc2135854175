package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketDataReadInitialStateTest;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socket;

/** Netty's {@link SocketDataReadInitialStateTest} over jfabric's providers ({@link JfabricSocketTestPermutation}). */
public class JfabricSocketDataReadInitialStateTest extends SocketDataReadInitialStateTest {
    // the suite's hooks, one line each: every class repeats them, one per suite test it subclasses
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socket(); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }

    @Test @Disabled("expects connect() to finish before the server accepts (the kernel's backlog); a jfabric client is connected when the accepted child answers, which needs the server to read; listed in docs/differences.md, Netty") @Override public void testAutoReadOffNoDataReadUntilReadCalled(TestInfo testInfo) { }
}
