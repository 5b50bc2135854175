package io.jfabric.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;

/**
 * The Java rung of bench/tcp-ladder: a loopback TCP ping-pong of {@code frame}-byte messages (by default 80: tcp's
 * 16-byte data header and 64 bytes of payload) on two non-blocking {@link SocketChannel}s that busy-poll, one
 * thread each side, as the floors program does in C and jfabric's tcp progress does. Between the C floor and
 * {@code jfabric pingpong -p tcp} it isolates what the JVM's system calls cost from what the provider adds.
 * Prints {@code usec_per_xfer=<one-way µs>} over the timed round trips, after {@code warmup} untimed ones.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.jfabric.bench.SocketPingPong &lt;iterations&gt; [warmup] [frame]</pre>
 */
public final class SocketPingPong {
    private SocketPingPong() {}

    public static void main(String[] args) throws Exception {
        long iterations = Long.parseLong(args[0]);
        long warmup = args.length > 1 ? Long.parseLong(args[1]) : 20_000;
        int frame = args.length > 2 ? Integer.parseInt(args[2]) : 80;
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel client = SocketChannel.open(listener.getLocalAddress());
            SocketChannel server = listener.accept();
            for (SocketChannel ch : new SocketChannel[] {client, server}) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.configureBlocking(false);
            }
            Thread echo = Thread.ofPlatform().name("pong").start(() -> bounce(server, frame, warmup + iterations));
            ByteBuffer buf = ByteBuffer.allocateDirect(frame);
            roundTrips(client, buf, warmup);
            long start = System.nanoTime();
            roundTrips(client, buf, iterations);
            long elapsed = System.nanoTime() - start;
            echo.join();
            client.close();
            server.close();
            System.out.printf(Locale.ROOT, "usec_per_xfer=%.3f%n", elapsed / 1e3 / (2.0 * iterations));
        }
    }

    private static void roundTrips(SocketChannel ch, ByteBuffer buf, long n) {
        for (long i = 0; i < n; i++) {
            writeAll(ch, buf);
            readAll(ch, buf);
        }
    }

    private static void bounce(SocketChannel ch, int frame, long n) {
        ByteBuffer buf = ByteBuffer.allocateDirect(frame);
        for (long i = 0; i < n; i++) {
            readAll(ch, buf);
            writeAll(ch, buf);
        }
    }

    private static void writeAll(SocketChannel ch, ByteBuffer buf) {
        buf.clear();
        try {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        } catch (IOException e) {
            throw new IllegalStateException("write failed", e);
        }
    }

    private static void readAll(SocketChannel ch, ByteBuffer buf) {
        buf.clear();
        try {
            while (buf.hasRemaining()) {
                if (ch.read(buf) < 0) {
                    throw new IllegalStateException("peer closed");
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("read failed", e);
        }
    }
}
