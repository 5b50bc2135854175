package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketHalfClosedTest;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.net.SocketAddress;
import java.util.List;

import static io.jfabric.netty.testsuite.JfabricSocketTestPermutation.socket;

/** Netty's {@link SocketHalfClosedTest} over jfabric's providers ({@link JfabricSocketTestPermutation}). */
public class JfabricSocketHalfClosedTest extends SocketHalfClosedTest {
    // the suite's hooks, one line each: every class repeats them, one per suite test it subclasses
    @Override protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() { return socket(); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }

    @Test @Disabled("casts the child to io.netty.channel.socket.SocketChannel (InetSocketAddress addresses) and sets SO_LINGER, a TCP socket option a jfabric channel does not have; listed in docs/differences.md, Netty") @Override public void testHalfClosureReceiveDataOnFinalWait2StateWhenSoLingerSet(TestInfo testInfo) { }

    /**
     * Not over ofi_rxm (tcp;ofi_rxm, verbs;ofi_rxm): its leader blocks its event loop in channelActive until the follower has read its first
     * write and closed, but an rxm send only leaves with that loop's progress (see
     * {@link JfabricSocketTestPermutation#only}), so the follower never reads and the test hangs.
     */
    @Test
    @Override
    public void testAutoCloseFalseDoesShutdownOutput(TestInfo testInfo) throws Throwable {
        JfabricSocketTestPermutation.onlyKinds(() -> super.testAutoCloseFalseDoesShutdownOutput(testInfo),
                JfabricSocketTestPermutation.Kind.SHM, JfabricSocketTestPermutation.Kind.CONNECTED);
    }
}
