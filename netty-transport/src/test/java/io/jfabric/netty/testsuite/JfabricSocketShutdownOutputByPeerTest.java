package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.AbstractSocketShutdownOutputByPeerTest;

import java.net.SocketAddress;
import java.util.List;

/**
 * Netty's {@link AbstractSocketShutdownOutputByPeerTest} over jfabric's providers: the server's child sees its peer
 * shut down its output (ChannelInputShutdownEvent with ALLOW_HALF_CLOSURE, a close without). Netty runs it with a
 * java.net.Socket as the peer (SocketShutdownOutputByPeerTest), and epoll's domain-socket run with its own native
 * socket; a jfabric server's peer speaks the stream's frames, so here the peer is a jfabric channel of the same
 * provider, used blocking as the suite uses its socket.
 */
public class JfabricSocketShutdownOutputByPeerTest extends AbstractSocketShutdownOutputByPeerTest<JfabricSocketShutdownOutputByPeerTest.Peer> {
    @Override protected List<BootstrapFactory<ServerBootstrap>> newFactories() { return JfabricSocketTestPermutation.serverSocket(); }

    @Override protected SocketAddress newSocketAddress() { return JfabricSocketTestPermutation.newSocketAddress(); }

    /** The peer: a client channel of the current combo's provider, connected, written and shut down blocking. */
    static final class Peer {
        Channel channel;
    }

    @Override
    protected Peer newSocket() {
        return new Peer();
    }

    @Override
    protected void connect(Peer s, SocketAddress address) {
        s.channel = JfabricSocketTestPermutation.clientOf(JfabricSocketTestPermutation.currentProvider())
                .handler(new ChannelInboundHandlerAdapter()).connect(address).syncUninterruptibly().channel();
    }

    @Override
    protected void write(Peer s, int data) {
        s.channel.writeAndFlush(Unpooled.buffer(1).writeByte(data)).syncUninterruptibly();
    }

    @Override
    protected void shutdownOutput(Peer s) {
        ((DuplexChannel) s.channel).shutdownOutput().syncUninterruptibly();
    }

    @Override
    protected void close(Peer s) {
        if (s.channel != null) {
            s.channel.close().syncUninterruptibly();
        }
    }
}
