package io.jfabric.netty.bench;

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
import io.jfabric.netty.grpc.ByteArrayMarshaller;
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
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

/**
 * Netty echo and gRPC unary and streaming, over jfabric's transports and Netty's epoll (NIO where epoll's native
 * library is missing) on loopback, side by side in one run. Not a test; run it as the report says:
 * {@code java -cp <test classpath> io.jfabric.netty.bench.NettyBench [rounds]}.
 */
public final class NettyBench {
    private record Transport(String name, EventLoopGroup group, Class<? extends ServerChannel> server,
                             Class<? extends Channel> client, SocketAddress bind, Class<? extends SocketAddress> addressType) {
    }

    private static final MethodDescriptor<byte[], byte[]> UNARY =
            ByteArrayMarshaller.method("bench", "Echo", MethodDescriptor.MethodType.UNARY);
    private static final MethodDescriptor<byte[], byte[]> STREAM =
            ByteArrayMarshaller.method("bench", "Stream", MethodDescriptor.MethodType.SERVER_STREAMING);

    private NettyBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        // epoll's native file is served only up to 4.2.18, which does not load beside 4.2.20's unix-common: NIO
        // is the loopback baseline unless -Djfabric.netty.bench.epoll=true and a matching native file is present
        boolean epoll = Boolean.getBoolean("jfabric.netty.bench.epoll") && Epoll.isAvailable();
        EventLoopGroup jf = new JfabricEventLoopGroup(2);
        EventLoopGroup base = new MultiThreadIoEventLoopGroup(2, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        Transport[] transports = {
            new Transport("jfabric shm", jf, JfabricServerChannel.class, JfabricSocketChannel.class,
                    JfabricAddress.any("shm"), JfabricAddress.class),
            new Transport("jfabric tcp;ofi_rxm", jf, JfabricServerChannel.class, JfabricSocketChannel.class,
                    JfabricAddress.bind("tcp;ofi_rxm", "127.0.0.1", null), JfabricAddress.class),
            epoll ? new Transport("epoll loopback", base, EpollServerSocketChannel.class, EpollSocketChannel.class,
                    new InetSocketAddress("127.0.0.1", 0), InetSocketAddress.class)
                  : new Transport("nio loopback", base,
                    NioServerSocketChannel.class, NioSocketChannel.class, new InetSocketAddress("127.0.0.1", 0),
                    InetSocketAddress.class),
        };
        System.out.printf("%-24s %14s %14s %16s %18s%n", "transport", "echo rtt us", "grpc unary us",
                "grpc stream MB/s", "(64 B echo/unary)");
        for (Transport t : transports) {
            double echo = echoRoundTripMicros(t, rounds);
            double[] grpc = grpc(t, rounds / 4);
            System.out.printf("%-24s %14.1f %14.1f %16.0f%n", t.name, echo, grpc[0], grpc[1]);
        }
        jf.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        base.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    /** Median round trip of a 64-byte echo, in microseconds. */
    private static double echoRoundTripMicros(Transport t, int rounds) throws Exception {
        Channel server = new ServerBootstrap().group(t.group).channel(t.server)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg);
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
        for (int i = 0; i < rounds + rounds / 10; i++) {
            long start = System.nanoTime();
            client.writeAndFlush(client.alloc().directBuffer(64).writeZero(64));
            int got = 0;
            while (got < 64) {
                ByteBuf b = replies.take();
                got += b.readableBytes();
                b.release();
            }
            if (i >= rounds / 10) {
                samples[i - rounds / 10] = System.nanoTime() - start;
            }
        }
        client.close().sync();
        server.close().sync();
        Arrays.sort(samples);
        return samples[rounds / 2] / 1000.0;
    }

    /** gRPC: median unary round trip (us) of 64 bytes, and server-streaming throughput (MB/s) of 64 KiB messages. */
    private static double[] grpc(Transport t, int calls) throws Exception {
        byte[] chunk = new byte[64 * 1024];
        ServerServiceDefinition svc = ServerServiceDefinition.builder("bench")
                .addMethod(UNARY, ServerCalls.asyncUnaryCall((req, out) -> {
                    out.onNext(req);
                    out.onCompleted();
                }))
                .addMethod(STREAM, ServerCalls.asyncServerStreamingCall((req, out) -> {
                    for (int i = 0; i < 2000; i++) {
                        out.onNext(chunk);
                    }
                    out.onCompleted();
                })).build();
        Server server = NettyServerBuilder.forAddress(t.bind).channelType(t.server)
                .bossEventLoopGroup(t.group).workerEventLoopGroup(t.group).addService(svc).build().start();
        ManagedChannel ch = NettyChannelBuilder.forAddress(server.getListenSockets().getFirst())
                .channelType(t.client, t.addressType).eventLoopGroup(t.group).usePlaintext().build();
        try {
            byte[] req = new byte[64];
            long[] samples = new long[calls];
            for (int i = 0; i < calls + calls / 10; i++) {
                long start = System.nanoTime();
                ClientCalls.blockingUnaryCall(ch, UNARY, CallOptions.DEFAULT, req);
                if (i >= calls / 10) {
                    samples[i - calls / 10] = System.nanoTime() - start;
                }
            }
            Arrays.sort(samples);
            long bytes = 0;
            long start = System.nanoTime();
            Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(ch, STREAM, CallOptions.DEFAULT, req);
            while (it.hasNext()) {
                bytes += it.next().length;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new double[] {samples[calls / 2] / 1000.0, bytes / seconds / 1e6};
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
