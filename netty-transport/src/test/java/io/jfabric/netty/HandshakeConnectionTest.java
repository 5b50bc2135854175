package io.jfabric.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Over ofi_rxm a client's CONNECT leaves from an endpoint of its own (Dialer), closed once the accepted side
 * answers: no TCP connection to the listener's port stays open beside the channels, which still carry data. A
 * client closed while its CONNECT still waits on that endpoint drops the CONNECT with the dialer, and its loop
 * carries on.
 */
@Timeout(60)
class HandshakeConnectionTest extends GroupTestBase {
    private static final int CLIENTS = 3;
    /** /proc/net/tcp's state column for ESTABLISHED. */
    private static final String ESTABLISHED = "01";

    @ParameterizedTest
    @ValueSource(strings = {Providers.RXM, Providers.LIBFABRIC_RXM})
    void noConnectionToTheListenerOutlivesTheHandshake(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        Channel server = EchoServer.bind(group, provider, null, true);
        List<Channel> clients = new ArrayList<>();
        BlockingQueue<ByteBuf> replies = new LinkedBlockingQueue<>();
        try {
            byte[] name = ((JfabricAddress) server.localAddress()).nameNoCopy();
            assertTrue(name.length >= 4 && name[0] == 2 && name[1] == 0, "the listener's name is a sockaddr_in");
            int listenerPort = (name[2] & 0xff) << 8 | name[3] & 0xff;
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(new Bootstrap().group(group).channel(JfabricSocketChannel.class)
                        .handler(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                replies.add((ByteBuf) msg);
                            }
                        }).connect(server.localAddress()).sync().channel());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Providers.seconds(5));
            int open;
            while ((open = establishedOn(listenerPort)) > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, open, "TCP connections to the listener's port " + listenerPort
                    + " still established after " + CLIENTS + " handshakes");
            for (Channel c : clients) {
                c.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {7})).sync();
                ByteBuf back = replies.poll(Providers.seconds(5), TimeUnit.SECONDS);
                assertNotNull(back, "an echo over a channel whose handshake endpoint has closed");
                assertEquals(7, back.getByte(0));
                back.release();
            }
        } finally {
            for (Channel c : clients) {
                c.close().sync();
            }
            server.close().sync();
        }
    }

    /** ESTABLISHED TCP sockets (either end) on {@code port}, from /proc/net/tcp and tcp6. */
    private static int establishedOn(int port) throws IOException {
        String hexPort = String.format(":%04X", port);
        int n = 0;
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Path.of(table);
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 3 && f[3].equals(ESTABLISHED) && (f[1].endsWith(hexPort) || f[2].endsWith(hexPort))) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * The listener is a plain TCP socket that takes the connection and never answers ofi_rxm's handshake, so the
     * CONNECT stays refused (EAGAIN) on the dialer's endpoint; the client closes meanwhile and lingers. Its loop
     * must not try the CONNECT again on the closed dialer: that ended the loop once ("Already closed" on the
     * dialer's freed memory) and every channel on it with it.
     */
    @ParameterizedTest
    @ValueSource(strings = {Providers.RXM, Providers.LIBFABRIC_RXM})
    void aClientClosedWhileItsConnectWaitsLeavesItsLoopRunning(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        EventLoopGroup loop = new JfabricEventLoopGroup(1);
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            int port = silent.getLocalPort();
            byte[] name = {2, 0, (byte) (port >> 8), (byte) port, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
            ChannelFuture connect = new Bootstrap().group(loop).channel(JfabricSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter()).connect(JfabricAddress.of(provider, name));
            try (Socket taken = silent.accept()) {
                Thread.sleep(100); // the CONNECT waits for the handshake nobody answers
                assertFalse(connect.isDone(), "nothing answers, so the connect is still pending: " + connect.cause());
                connect.channel().close().sync();
                Thread.sleep(TimeUnit.SECONDS.toMillis(Providers.seconds(1))); // it lingers, polled every turn
                assertEquals(42, loop.submit(() -> 42).get(Providers.seconds(5), TimeUnit.SECONDS),
                        "the loop still runs tasks");
            }
            assertFalse(connect.isSuccess());
        } finally {
            loop.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
