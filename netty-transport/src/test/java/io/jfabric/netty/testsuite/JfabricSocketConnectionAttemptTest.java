package io.jfabric.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketConnectionAttemptTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Netty's {@link SocketConnectionAttemptTest} over the named providers with host-and-port addresses (not shm: the
 * test dials {@code host:port} itself). It dials a refusing port on 127.0.0.1, and a "bad host" that must not
 * answer at all. Netty's default bad host is 198.51.100.254 (TEST-NET-2), whose SYNs would leave the machine; here
 * it is a listener on 127.0.0.1 whose accept queue is full, so the kernel drops every further SYN and a connect to
 * it waits until it times out, without a packet leaving loopback. The Soft-RoCE VM's run, whose verbs providers
 * cannot dial loopback, names an unused address of its own rxe network instead
 * ({@code -Djfabric.netty.testsuite.badHost}).
 */
public class JfabricSocketConnectionAttemptTest extends SocketConnectionAttemptTest {
    /** An unused address on a network of the test's own, named where loopback is not the providers' (verbs). */
    private static final String NAMED_BAD_HOST = System.getProperty("jfabric.netty.testsuite.badHost");
    private static final SilentListener SILENT = NAMED_BAD_HOST == null ? SilentListener.open() : null;
    private static final String BAD_HOST = NAMED_BAD_HOST == null ? "127.0.0.1" : NAMED_BAD_HOST;
    private static final int BAD_PORT = SILENT == null ? 7471 : SILENT.port();

    static {
        // read once, when the suite's SocketTestPermutation is first used: checked in noPacketLeavesThisMachine
        System.setProperty("io.netty.testsuite.badHost", BAD_HOST);
        System.setProperty("io.netty.testsuite.badPort", Integer.toString(BAD_PORT));
    }

    @Override protected List<BootstrapFactory<Bootstrap>> newFactories() { return JfabricSocketTestPermutation.clientSocketByHostAndPort(); }

    @BeforeAll
    static void noPacketLeavesThisMachine() throws ReflectiveOperationException {
        Class<?> permutation = Class.forName("io.netty.testsuite.transport.socket.SocketTestPermutation");
        assertEquals(BAD_HOST, staticField(permutation, "BAD_HOST"),
                "the suite's bad host was read before this class set it: its dials would leave the machine");
        assertEquals(BAD_PORT, staticField(permutation, "BAD_PORT"));
    }

    @AfterAll
    static void closeSilentListener() {
        if (SILENT != null) {
            SILENT.close();
        }
    }

    private static Object staticField(Class<?> c, String name) throws ReflectiveOperationException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(null);
    }

    /** A listener on 127.0.0.1 that never accepts, with its accept queue filled so that new connects go unanswered. */
    record SilentListener(ServerSocket server, List<Socket> fillers) {
        static SilentListener open() {
            try {
                ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                List<Socket> fillers = new ArrayList<>();
                // a backlog of 1 holds two; a connect that times out shows the queue full (at most 16 tries)
                for (int i = 0; i < 16; i++) {
                    Socket s = new Socket();
                    try {
                        s.connect(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()), 200);
                        fillers.add(s);
                    } catch (SocketTimeoutException full) {
                        s.close();
                        return new SilentListener(server, fillers);
                    }
                }
                throw new IllegalStateException("a listener with a backlog of 1 took 16 connections unaccepted");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        int port() {
            return server.getLocalPort();
        }

        void close() {
            try {
                for (Socket s : fillers) {
                    s.close();
                }
                server.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
