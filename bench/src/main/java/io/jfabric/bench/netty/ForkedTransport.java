package io.jfabric.bench.netty;

import io.grpc.CallOptions;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
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
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One transport of bench/netty in a JVM of its own (a fork, as JMH runs each benchmark): it builds that transport's
 * event loops only, warms up until the JIT is quiet ({@link JitWarmup}), then measures its rounds and prints each
 * as a {@code sample} line for the parent. A JVM of its own keeps one transport's classes out of another's
 * compiled code (Netty's and gRPC's call sites would otherwise be recompiled each time the transport changes) and
 * keeps its idle loops off the others' cores.
 */
final class ForkedTransport {
    private record Transport(String name, EventLoopGroup group, Class<? extends ServerChannel> server,
                             Class<? extends Channel> client, SocketAddress bind, Class<? extends SocketAddress> addressType) {
    }

    /**
     * The line prefix of a measured round: echo rtt (us), unary rtt (us), unary rtt on directExecutor() (us),
     * streaming MB/s, isReady() streaming MB/s.
     */
    static final String SAMPLE = "sample ";
    private static final int ECHO_BYTES = 64;

    /**
     * Plain bytes, marshalled the way gRPC's protobuf marshaller does a message: the stream it hands gRPC knows its
     * length and drains into gRPC's buffer in one write (an InputStream that does neither is copied through a
     * scratch array), and parsing reads the known length into one array of that size.
     */
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public byte[] parse(InputStream in) {
            try (in) {
                byte[] b = new byte[in.available()]; // gRPC's message streams are KnownLength
                if (in.readNBytes(b, 0, b.length) != b.length || in.read() != -1) {
                    throw new IOException("a gRPC message stream whose length is not what it said");
                }
                return b;
            } catch (IOException e) {
                throw new UncheckedIOException("reading a gRPC message", e);
            }
        }

        @Override
        public InputStream stream(byte[] value) {
            return new BytesStream(value);
        }
    };

    private static final class BytesStream extends ByteArrayInputStream implements KnownLength, Drainable {
        BytesStream(byte[] bytes) {
            super(bytes);
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            int n = count - pos;
            target.write(buf, pos, n);
            pos = count;
            return n;
        }
    }

    private static final MethodDescriptor<byte[], byte[]> UNARY = method("Echo", MethodDescriptor.MethodType.UNARY);
    private static final MethodDescriptor<byte[], byte[]> STREAM =
            method("Stream", MethodDescriptor.MethodType.SERVER_STREAMING);
    private static final MethodDescriptor<byte[], byte[]> READY_STREAM =
            method("ReadyStream", MethodDescriptor.MethodType.SERVER_STREAMING);

    /** The unary method's handler: answers with the request. */
    private static final ServerCallHandler<byte[], byte[]> ECHO = ServerCalls.asyncUnaryCall((req, out) -> {
        out.onNext(req);
        out.onCompleted();
    });

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName("bench", name))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
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

    /**
     * gRPC: median unary round trip (us) of 64 bytes, then server-streaming throughput (MB/s) of streamChunk-byte
     * messages twice: from a server that calls {@code onNext} for every message in a row, and from one that writes
     * only while the call is ready ({@link ReadyStreamer}).
     */
    private static double[] grpc(Transport t, BenchOptions o) throws Exception {
        int streamed = o.streamed();
        byte[] chunk = new byte[o.streamChunk()];
        ServerServiceDefinition svc = ServerServiceDefinition.builder("bench")
                .addMethod(UNARY, ECHO)
                .addMethod(STREAM, ServerCalls.asyncServerStreamingCall((req, out) -> {
                    for (int i = 0; i < streamed; i++) {
                        out.onNext(chunk);
                    }
                    out.onCompleted();
                }))
                .addMethod(READY_STREAM, ServerCalls.asyncServerStreamingCall((req, out) ->
                        new ReadyStreamer((ServerCallStreamObserver<byte[]>) out, chunk, streamed).start()))
                .build();
        Server server = startServer(t, svc, o.directExecutor());
        ManagedChannel ch = openChannel(t, server, chunk.length, o.directExecutor());
        try {
            double unary = unaryMicros(ch, o.unaries());
            long bytes = (long) streamed * chunk.length;
            return new double[] {unary, streamMbps(ch, STREAM, bytes), streamMbps(ch, READY_STREAM, bytes)};
        } finally {
            close(ch, server);
        }
    }

    /**
     * The same unary calls on a server and channel built with {@code directExecutor()}, what grpc-java advises for
     * handlers that never block: the server's handler runs on the loop that read the request instead of being
     * handed to gRPC's thread pool (the blocking caller still waits in its own thread for the response).
     */
    private static double directUnaryMicros(Transport t, BenchOptions o) throws Exception {
        Server server = startServer(t, ServerServiceDefinition.builder("bench").addMethod(UNARY, ECHO).build(), true);
        ManagedChannel ch = openChannel(t, server, ECHO_BYTES, true);
        try {
            return unaryMicros(ch, o.unaries());
        } finally {
            close(ch, server);
        }
    }

    private static Server startServer(Transport t, ServerServiceDefinition svc, boolean direct) throws IOException {
        NettyServerBuilder sb = NettyServerBuilder.forAddress(t.bind).channelType(t.server)
                .bossEventLoopGroup(t.group).workerEventLoopGroup(t.group).addService(svc);
        if (direct) {
            sb.directExecutor();
        }
        return sb.build().start();
    }

    private static ManagedChannel openChannel(Transport t, Server server, int largestMessage, boolean direct) {
        NettyChannelBuilder cb = NettyChannelBuilder.forAddress(server.getListenSockets().getFirst())
                .channelType(t.client, t.addressType).eventLoopGroup(t.group).usePlaintext()
                .maxInboundMessageSize(Math.max(4 << 20, largestMessage + 1024));
        if (direct) {
            cb.directExecutor();
        }
        return cb.build();
    }

    private static void close(ManagedChannel ch, Server server) throws InterruptedException {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Median of {@code calls} blocking unary round trips (us), after a tenth as many warm-up calls. */
    private static double unaryMicros(ManagedChannel ch, int calls) {
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
        return samples[calls / 2] / 1000.0;
    }

    /** MB/s of the second of two calls of {@code method} (the first warms its path); each must bring {@code bytes}. */
    private static double streamMbps(ManagedChannel ch, MethodDescriptor<byte[], byte[]> method, long bytes) {
        double mbps = 0;
        for (int pass = 0; pass < 2; pass++) {
            long got = 0;
            long start = System.nanoTime();
            Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(ch, method, CallOptions.DEFAULT,
                    new byte[ECHO_BYTES]);
            while (it.hasNext()) {
                got += it.next().length;
            }
            if (got != bytes) {
                throw new IllegalStateException(method.getBareMethodName() + ": the stream ended after " + got
                        + " bytes, not " + bytes);
            }
            mbps = got / ((System.nanoTime() - start) / 1e9) / 1e6;
        }
        return mbps;
    }

    private ForkedTransport() {
    }

    /** A transport key's suffix that runs its two event loops one to each CPU ({@link PinnedThreadFactory}). */
    static final String PINNED = "@pinned";

    /** The name a transport key is reported under. */
    static String displayName(String key, boolean epoll) {
        if (key.endsWith(PINNED)) {
            return displayName(key.substring(0, key.length() - PINNED.length()), epoll) + ", loops pinned";
        }
        return switch (key) {
            case "loopback" -> epoll ? "epoll loopback" : "nio loopback";
            case "local" -> "netty local (in-JVM)";
            default -> "jfabric " + key;
        };
    }

    private static Transport open(String key, boolean epoll) {
        String name = displayName(key, epoll);
        boolean pinned = key.endsWith(PINNED);
        // the same two loops for every transport: Netty's default threads, or each kept on one CPU
        ThreadFactory loops = pinned ? new PinnedThreadFactory("bench-loop") : new DefaultThreadFactory("bench-loop");
        return open(pinned ? key.substring(0, key.length() - PINNED.length()) : key, name, epoll, loops);
    }

    private static Transport open(String key, String name, boolean epoll, ThreadFactory loops) {
        return switch (key) {
            case "loopback" -> epoll
                    ? new Transport(name, new MultiThreadIoEventLoopGroup(2, loops, EpollIoHandler.newFactory()),
                            EpollServerSocketChannel.class, EpollSocketChannel.class, new InetSocketAddress("127.0.0.1", 0),
                            InetSocketAddress.class)
                    : new Transport(name, new MultiThreadIoEventLoopGroup(2, loops, NioIoHandler.newFactory()),
                            NioServerSocketChannel.class, NioSocketChannel.class, new InetSocketAddress("127.0.0.1", 0),
                            InetSocketAddress.class);
            // Netty's in-JVM channel: messages handed between event loops with no transport at all, so its
            // figures are what Netty and gRPC cost by themselves, the floor under every transport's row
            case "local" -> new Transport(name, new MultiThreadIoEventLoopGroup(2, loops, LocalIoHandler.newFactory()),
                    LocalServerChannel.class, LocalChannel.class, LocalAddress.ANY, LocalAddress.class);
            case "shm" -> new Transport(name, new JfabricEventLoopGroup(2, loops), JfabricServerChannel.class,
                    JfabricSocketChannel.class, JfabricAddress.any("shm"), JfabricAddress.class);
            default -> new Transport(name, new JfabricEventLoopGroup(2, loops), JfabricServerChannel.class,
                    JfabricSocketChannel.class, JfabricAddress.bind(key, "127.0.0.1", null), JfabricAddress.class);
        };
    }

    /** Runs transport {@code key} with options {@code o}: warm-up, then {@code o.rounds()} measured rounds. */
    static void run(String key, BenchOptions o) throws Exception {
        // epoll's native file is served only up to 4.2.18; where it does not load beside 4.2.20, NIO is the baseline
        Transport t = open(key, Epoll.isAvailable());
        try {
            JitWarmup warmup = new JitWarmup(o.warmupMaxSeconds());
            long compiled;
            long start;
            do {
                compiled = compileMillis();
                start = System.nanoTime();
                round(t, o);
            } while (!warmup.roundDone(compileMillis() - compiled, System.nanoTime() - start));
            System.out.printf("# %s: warmed up for %.1f s (%d rounds, %s)%n", t.name, warmup.seconds(), warmup.rounds(),
                    warmup.quiet() ? "the JIT went quiet" : "the time limit; the JIT was still compiling");
            for (int r = 1; r <= o.rounds(); r++) {
                double[] s = round(t, o);
                System.out.printf("# round %d %-22s echo %8.1f us  unary %8.1f us  direct %8.1f us  stream %8.0f MB/s"
                        + "  isReady %8.0f MB/s%n", r, t.name, s[0], s[1], s[2], s[3], s[4]);
                System.out.println(SAMPLE + s[0] + " " + s[1] + " " + s[2] + " " + s[3] + " " + s[4]);
            }
        } finally {
            t.group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static double[] round(Transport t, BenchOptions o) throws Exception {
        double echo = echoRoundTripMicros(t, o.echoes());
        double[] grpc = grpc(t, o);
        double direct = directUnaryMicros(t, o);
        return new double[] {echo, grpc[0], direct, grpc[1], grpc[2]};
    }

    private static long compileMillis() {
        return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }
}
