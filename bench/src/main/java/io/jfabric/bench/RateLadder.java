package io.jfabric.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;

/**
 * The socket rungs of bench/rate-ladder: the message-rate loop of {@code jfabric bw --rate} (windows of small
 * messages one way, one ack back when all arrived) on a plain Java {@link SocketChannel} over loopback, with no
 * provider in it: what the kernel and NIO cost per message before tcp framing, rxm matching, the CQ and the
 * CLI's loop add theirs. Both sides spin on non-blocking sockets, as the providers' progress does.
 * <ul>
 *   <li>{@code socket}: one write(2) per message, as the providers send an inject today;</li>
 *   <li>{@code socket-window}: a window's messages copied into one buffer and written with one call: what
 *       coalescing a window's writes could reach.</li>
 * </ul>
 * Every message is {@code frame} bytes (by default 144: tcp's 16-byte header, rxm's 64-byte packet header and
 * 64 bytes of payload); the receiver reads through a 64 KiB buffer and counts whole frames. Prints the client's
 * million messages per second.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.jfabric.bench.RateLadder socket|socket-window server|client
 *     &lt;port&gt; &lt;windows&gt; [frame]</pre>
 */
public final class RateLadder {
    private static final int WINDOW = 64;
    private static final int WARMUP_WINDOWS = 2_000;
    private static final long CONNECT_WAIT_NANOS = 10_000_000_000L;

    private RateLadder() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 4) {
            System.err.println("usage: RateLadder socket|socket-window server|client <port> <windows> [frame]");
            System.exit(2);
        }
        boolean coalesce = switch (args[0]) {
            case "socket" -> false;
            case "socket-window" -> true;
            default -> throw new IllegalArgumentException("unknown rung " + args[0]);
        };
        int port = Integer.parseInt(args[2]);
        long windows = Long.parseLong(args[3]);
        int frame = args.length > 4 ? Integer.parseInt(args[4]) : 144;
        long messages = (WARMUP_WINDOWS + windows) * WINDOW;
        if (args[1].equals("server")) {
            try (SocketChannel ch = accept(port)) {
                receive(ch, frame, messages);
            }
        } else {
            try (SocketChannel ch = connect(port)) {
                double rate = send(ch, frame, windows, coalesce);
                System.out.printf(Locale.ROOT, "%.4f%n", rate);
            }
        }
    }

    private static SocketChannel accept(int port) throws IOException {
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress("127.0.0.1", port));
            SocketChannel ch = ss.accept();
            return tune(ch);
        }
    }

    private static SocketChannel connect(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + CONNECT_WAIT_NANOS;
        while (true) {
            try {
                return tune(SocketChannel.open(new InetSocketAddress("127.0.0.1", port)));
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20); // the server is not listening yet
            }
        }
    }

    private static SocketChannel tune(SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(false);
        return ch;
    }

    /** The client: warm-up windows, then the timed ones, then the server's ack; returns million messages/s. */
    private static double send(SocketChannel ch, int frame, long windows, boolean coalesce) throws IOException {
        ByteBuffer one = ByteBuffer.allocateDirect(frame);
        ByteBuffer all = ByteBuffer.allocateDirect(frame * WINDOW);
        ByteBuffer ack = ByteBuffer.allocateDirect(4);
        long start = 0;
        for (long w = 0; w < WARMUP_WINDOWS + windows; w++) {
            if (w == WARMUP_WINDOWS) {
                start = System.nanoTime();
            }
            if (coalesce) {
                all.clear();
                writeFully(ch, all);
            } else {
                for (int i = 0; i < WINDOW; i++) {
                    one.clear();
                    writeFully(ch, one);
                }
            }
        }
        while (ack.hasRemaining()) {
            if (ch.read(ack) < 0) {
                throw new IOException("server closed before its ack");
            }
        }
        long elapsed = System.nanoTime() - start;
        return windows * WINDOW * 1e3 / elapsed;
    }

    private static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b); // non-blocking: spins while the socket is full, as a provider's progress does
        }
    }

    /** The server: counts whole frames through a prefetch buffer, then acks. */
    private static void receive(SocketChannel ch, int frame, long messages) throws IOException {
        ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
        long bytes = 0;
        long want = messages * frame;
        while (bytes < want) {
            in.clear();
            int n = ch.read(in);
            if (n < 0) {
                throw new IOException("client closed after " + bytes / frame + " of " + messages + " messages");
            }
            bytes += n;
        }
        ByteBuffer ack = ByteBuffer.allocateDirect(4);
        while (ack.hasRemaining()) {
            ch.write(ack);
        }
    }
}
