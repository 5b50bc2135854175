import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The busy-polling loopback socket floor of floors.c ({@code floors sock <size> N}) written in Java: the same
 * recv(MSG_DONTWAIT)/write loop, made through FFM downcalls of syscall(2) on the socket's descriptor as
 * jfabric's tcp makes them (x86-64 Linux only). Its distance from the C floor is what the JVM and FFM cost
 * per message; its distance from jfabric's tcp is what jfabric's own code costs. bench/tcp-ladder's "ffm" rung:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
 *      bench/floors/JavaSocketFloor.java &lt;iterations&gt; [size, default 64]
 * </pre>
 *
 * It starts its echo side as a second JVM and prints the one-way time of {@code size}-byte messages, in
 * fi_pingpong's units, after an untimed pass of the same length.
 */
public class JavaSocketFloor {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final long SYS_WRITE = 1;
    private static final long SYS_RECVFROM = 45;
    private static final long MSG_DONTWAIT = 0x40;
    private static final String ECHO = "--echo";
    private static int size = 64;
    private static final MethodHandle SYSCALL6 = LINKER.downcallHandle(
            LINKER.defaultLookup().find("syscall").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(1));

    public static void main(String[] args) throws Throwable {
        int iters = Integer.parseInt(args[0]);
        if (args.length > 1 && !args[1].equals(ECHO)) {
            size = Integer.parseInt(args[1]);
        }
        int echoAt = List.of(args).indexOf(ECHO);
        if (echoAt > 0) {
            echo(Integer.parseInt(args[echoAt + 1]), iters);
            return;
        }
        try (ServerSocketChannel listen = ServerSocketChannel.open()) {
            listen.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) listen.getLocalAddress()).getPort();
            // the echo side: this same command line (source file or class) with the port added
            ProcessHandle.Info me = ProcessHandle.current().info();
            List<String> cmd = new ArrayList<>();
            cmd.add(me.command().orElse("java"));
            cmd.addAll(List.of(me.arguments().orElse(new String[0])));
            cmd.add(ECHO);
            cmd.add(Integer.toString(port));
            Process echo = new ProcessBuilder(cmd).inheritIO().start();
            listen.configureBlocking(false);
            SocketChannel accepted;
            while ((accepted = listen.accept()) == null) {
                if (!echo.isAlive()) {
                    throw new IllegalStateException("the echo side exited with status " + echo.exitValue());
                }
                Thread.sleep(1);
            }
            try (SocketChannel ch = accepted) {
                long fd = descriptor(ch);
                long buf = Arena.global().allocate(size).address();
                for (int pass = 0; pass < 2; pass++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < iters; i++) {
                        send(fd, buf);
                        receive(fd, buf);
                    }
                    long t1 = System.nanoTime();
                    if (pass == 1) {
                        System.out.printf("usec_per_xfer=%.3f%n", (t1 - t0) / 1e3 / iters / 2);
                    }
                }
            }
            echo.waitFor();
        }
    }

    private static void echo(int port, int iters) throws Throwable {
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            long fd = descriptor(ch);
            long buf = Arena.global().allocate(size).address();
            for (long i = 0; i < 2L * iters; i++) {
                receive(fd, buf);
                send(fd, buf);
            }
        }
    }

    private static long descriptor(SocketChannel ch) throws ReflectiveOperationException, java.io.IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(false);
        var f = ch.getClass().getDeclaredField("fdVal");
        f.setAccessible(true);
        return f.getInt(ch);
    }

    private static void receive(long fd, long buf) throws Throwable {
        long got = 0;
        while (got < size) {
            long r = (long) SYSCALL6.invokeExact(SYS_RECVFROM, fd, buf + got, size - got, MSG_DONTWAIT, 0L, 0L);
            if (r > 0) {
                got += r;
            } else if (r == 0) {
                throw new java.io.EOFException("peer closed");
            }
        }
    }

    private static void send(long fd, long buf) throws Throwable {
        long sent = 0;
        while (sent < size) {
            long w = (long) SYSCALL6.invokeExact(SYS_WRITE, fd, buf + sent, size - sent, 0L, 0L, 0L);
            if (w > 0) {
                sent += w;
            }
        }
    }
}
