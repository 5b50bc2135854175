package io.jfabric.bench.netty;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.jfabric.netty.JfabricAddress;
import io.jfabric.netty.JfabricEventLoopGroup;
import io.jfabric.netty.JfabricServerChannel;
import io.jfabric.netty.JfabricSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench/netty}: Netty echo, gRPC unary latency and gRPC server-streaming throughput over jfabric's channels
 * (shm, tcp;ofi_rxm) against Netty's epoll on loopback (NIO where epoll's native file does not load), with Netty's
 * in-JVM local channel as the floor (Netty and gRPC with no transport under them), side by side:
 * every round measures every transport in turn, so a loaded machine's drift falls on all of them alike, and the
 * table shows the median over rounds with each jfabric row's ratio to the loopback baseline.
 *
 * <pre>
 *   bench/netty [--rounds 5] [--echo 5000] [--unary 2000] [--stream 1000] [--transports local,shm,tcp;ofi_rxm,loopback]
 *               [--direct-executor] [--stream-kib 64]
 * </pre>
 */
public final class NettyBench {
    private record Transport(String name, EventLoopGroup group, Class<? extends ServerChannel> server,
                             Class<? extends Channel> client, SocketAddress bind, Class<? extends SocketAddress> addressType) {
    }

    /** One transport's figures in one round: echo rtt (us), unary rtt (us), streaming MB/s. */
    private record Sample(double echo, double unary, double stream) {
    }

    private static final int ECHO_BYTES = 64;
    /** gRPC calls run on the event loops (directExecutor) rather than hop to gRPC's default thread pool. */
    private static boolean directExecutor;
    /** Bytes of each server-streamed message ({@code --stream-kib}). */
    private static int streamChunk = 64 * 1024;

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public byte[] parse(InputStream in) {
            try (in) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException("reading a gRPC message", e);
            }
        }

        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }
    };
    private static final MethodDescriptor<byte[], byte[]> UNARY = method("Echo", MethodDescriptor.MethodType.UNARY);
    private static final MethodDescriptor<byte[], byte[]> STREAM =
            method("Stream", MethodDescriptor.MethodType.SERVER_STREAMING);

    private NettyBench() {
    }

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName("bench", name))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        int echoes = 5000;
        int unaries = 2000;
        int streamed = 1000;
        List<String> wanted = List.of("local", "shm", "tcp;ofi_rxm", "loopback");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--echo" -> echoes = Integer.parseInt(args[++i]);
                case "--unary" -> unaries = Integer.parseInt(args[++i]);
                case "--stream" -> streamed = Integer.parseInt(args[++i]);
                case "--transports" -> wanted = List.of(args[++i].split(","));
                case "--direct-executor" -> directExecutor = true;
                case "--stream-kib" -> streamChunk = Integer.parseInt(args[++i]) * 1024;
                case "-h", "--help" -> {
                    System.out.println("bench/netty [--rounds N] [--echo N] [--unary N] [--stream N] "
                            + "[--transports local,shm,tcp;ofi_rxm,loopback] [--direct-executor] [--stream-kib 64]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--help lists them)");
            }
        }
        // epoll's native file is served only up to 4.2.18; where it does not load beside 4.2.20, NIO is the baseline
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup jf = new JfabricEventLoopGroup(2);
        EventLoopGroup base = new MultiThreadIoEventLoopGroup(2, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        EventLoopGroup local = new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
        List<Transport> transports = new ArrayList<>();
        for (String w : wanted) {
            transports.add(switch (w) {
                case "loopback" -> epoll
                        ? new Transport("epoll loopback", base, EpollServerSocketChannel.class, EpollSocketChannel.class,
                                new InetSocketAddress("127.0.0.1", 0), InetSocketAddress.class)
                        : new Transport("nio loopback", base, NioServerSocketChannel.class, NioSocketChannel.class,
                                new InetSocketAddress("127.0.0.1", 0), InetSocketAddress.class);
                // Netty's in-JVM channel: messages handed between event loops with no transport at all, so its
                // figures are what Netty and gRPC cost by themselves, the floor under every transport's row
                case "local" -> new Transport("netty local (in-JVM)", local, LocalServerChannel.class, LocalChannel.class,
                        LocalAddress.ANY, LocalAddress.class);
                case "shm" -> new Transport("jfabric shm", jf, JfabricServerChannel.class, JfabricSocketChannel.class,
                        JfabricAddress.any("shm"), JfabricAddress.class);
                default -> new Transport("jfabric " + w, jf, JfabricServerChannel.class, JfabricSocketChannel.class,
                        JfabricAddress.bind(w, "127.0.0.1", null), JfabricAddress.class);
            });
        }
        if (!epoll) {
            System.out.println("# epoll unavailable (" + Epoll.unavailabilityCause() + "): NIO is the baseline");
        }
        System.out.printf("# %d interleaved rounds; per round: %d echoes of %d B, %d gRPC unary calls of %d B, "
                + "%d streamed messages of %d KiB%n", rounds, echoes, ECHO_BYTES, unaries, ECHO_BYTES, streamed,
                streamChunk / 1024);
        Sample[][] samples = new Sample[transports.size()][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int t = 0; t < transports.size(); t++) {
                Transport tr = transports.get(t);
                double echo = echoRoundTripMicros(tr, echoes);
                double[] grpc = grpc(tr, unaries, streamed);
                samples[t][r] = new Sample(echo, grpc[0], grpc[1]);
                System.out.printf("# round %d %-22s echo %8.1f us  unary %8.1f us  stream %8.0f MB/s%n",
                        r + 1, tr.name, echo, grpc[0], grpc[1]);
            }
        }
        report(transports, samples);
        jf.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        base.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        local.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    /** The medians over rounds, each against the last transport (the loopback baseline when it is listed last). */
    private static void report(List<Transport> transports, Sample[][] samples) {
        int last = transports.size() - 1;
        double[] baseline = medians(samples[last]);
        System.out.printf("%n| %-22s | %12s | %16s | %18s | %8s | %9s | %10s |%n", "transport", "echo rtt us",
                "gRPC unary us", "gRPC stream MB/s", "echo ×", "unary ×", "stream ×");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (int t = 0; t < transports.size(); t++) {
            double[] m = medians(samples[t]);
            System.out.printf("| %-22s | %12.1f | %16.1f | %18.0f | %8.2f | %9.2f | %10.2f |%n", transports.get(t).name,
                    m[0], m[1], m[2], m[0] / baseline[0], m[1] / baseline[1], m[2] / baseline[2]);
        }
        System.out.println("(× = this row ÷ " + transports.get(last).name + "; spread: min–max over rounds below)");
        for (int t = 0; t < transports.size(); t++) {
            Sample[] s = samples[t];
            System.out.printf("# %-22s echo %s  unary %s  stream %s%n", transports.get(t).name,
                    spread(s, 0), spread(s, 1), spread(s, 2));
        }
    }

    private static double[] medians(Sample[] s) {
        return new double[] {median(column(s, 0)), median(column(s, 1)), median(column(s, 2))};
    }

    private static double[] column(Sample[] s, int which) {
        double[] c = new double[s.length];
        for (int i = 0; i < s.length; i++) {
            c[i] = which == 0 ? s[i].echo : which == 1 ? s[i].unary : s[i].stream;
        }
        Arrays.sort(c);
        return c;
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String spread(Sample[] s, int which) {
        double[] c = column(s, which);
        return String.format("%.1f–%.1f", c[0], c[c.length - 1]);
    }

    /** Median round trip of a 64-byte echo, in microseconds, after a tenth as many warm-up round trips. */
    private static double echoRoundTripMicros(Transport t, int rounds) throws Exception {
        Channel server = new ServerBootstrap().group(t.group).channel(t.server)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg, ctx.voidPromise());
                    }
                }).bind(t.bind).sync().channel();
        SynchronousQueue<ByteBuf> replies = new SynchronousQueue<>();
        Channel client = new Bootstrap().group(t.group).channel(t.client)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        try {
                            replies.put((ByteBuf) msg);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }).connect(server.localAddress()).sync().channel();
        long[] samples = new long[rounds];
        int warm = rounds / 10;
        for (int i = 0; i < rounds + warm; i++) {
            long start = System.nanoTime();
            client.writeAndFlush(client.alloc().directBuffer(ECHO_BYTES).writeZero(ECHO_BYTES), client.voidPromise());
            int got = 0;
            while (got < ECHO_BYTES) {
                ByteBuf b = replies.take();
                got += b.readableBytes();
                b.release();
            }
            if (i >= warm) {
                samples[i - warm] = System.nanoTime() - start;
            }
        }
        client.close().sync();
        server.close().sync();
        Arrays.sort(samples);
        return samples[rounds / 2] / 1000.0;
    }

    /** gRPC: median unary round trip (us) of 64 bytes, and server-streaming throughput (MB/s) of streamChunk-byte messages. */
    private static double[] grpc(Transport t, int calls, int streamed) throws Exception {
        byte[] chunk = new byte[streamChunk];
        ServerServiceDefinition svc = ServerServiceDefinition.builder("bench")
                .addMethod(UNARY, ServerCalls.asyncUnaryCall((req, out) -> {
                    out.onNext(req);
                    out.onCompleted();
                }))
                .addMethod(STREAM, ServerCalls.asyncServerStreamingCall((req, out) -> {
                    for (int i = 0; i < streamed; i++) {
                        out.onNext(chunk);
                    }
                    out.onCompleted();
                })).build();
        NettyServerBuilder sb = NettyServerBuilder.forAddress(t.bind).channelType(t.server)
                .bossEventLoopGroup(t.group).workerEventLoopGroup(t.group).addService(svc);
        if (directExecutor) {
            sb.directExecutor();
        }
        Server server = sb.build().start();
        NettyChannelBuilder cb = NettyChannelBuilder.forAddress(server.getListenSockets().getFirst())
                .channelType(t.client, t.addressType).eventLoopGroup(t.group).usePlaintext()
                .maxInboundMessageSize(Math.max(4 << 20, streamChunk + 1024));
        if (directExecutor) {
            cb.directExecutor();
        }
        ManagedChannel ch = cb.build();
        try {
            byte[] req = new byte[ECHO_BYTES];
            long[] samples = new long[calls];
            int warm = calls / 10;
            for (int i = 0; i < calls + warm; i++) {
                long start = System.nanoTime();
                ClientCalls.blockingUnaryCall(ch, UNARY, CallOptions.DEFAULT, req);
                if (i >= warm) {
                    samples[i - warm] = System.nanoTime() - start;
                }
            }
            Arrays.sort(samples);
            // one stream to warm the path, then the measured one
            double mbps = 0;
            for (int pass = 0; pass < 2; pass++) {
                long bytes = 0;
                long start = System.nanoTime();
                Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(ch, STREAM, CallOptions.DEFAULT, req);
                while (it.hasNext()) {
                    bytes += it.next().length;
                }
                mbps = bytes / ((System.nanoTime() - start) / 1e9) / 1e6;
            }
            return new double[] {samples[calls / 2] / 1000.0, mbps};
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
