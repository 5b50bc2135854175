package io.jfabric.netty.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.jfabric.netty.Jfabric;
import io.jfabric.netty.JfabricAddress;
import io.jfabric.netty.JfabricChannelOption;
import io.jfabric.netty.GroupTestBase;
import io.jfabric.netty.JfabricServerChannel;
import io.jfabric.netty.JfabricSocketChannel;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC-Java (grpc-netty) with jfabric's channels and event loops: unary, server and client streaming, bidi,
 * deadlines, cancellation, 16 MiB messages and 100 concurrent calls, with plain byte[] marshallers.
 */
@Timeout(120)
class GrpcOverJfabricTest extends GroupTestBase {
    static final MethodDescriptor<byte[], byte[]> UNARY = method("Echo", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<byte[], byte[]> SERVER_STREAM = method("Split", MethodDescriptor.MethodType.SERVER_STREAMING);
    static final MethodDescriptor<byte[], byte[]> CLIENT_STREAM = method("Join", MethodDescriptor.MethodType.CLIENT_STREAMING);
    static final MethodDescriptor<byte[], byte[]> BIDI = method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING);
    static final MethodDescriptor<byte[], byte[]> SLOW = method("Slow", MethodDescriptor.MethodType.UNARY);

    /** Counted down by the server's cancel handler; fresh for each run. */
    static volatile CountDownLatch serverSawCancel = new CountDownLatch(1);

    static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return ByteArrayMarshaller.method("jfabric.Test", name, type);
    }

    static ServerServiceDefinition service() {
        return ServerServiceDefinition.builder("jfabric.Test")
                .addMethod(UNARY, ServerCalls.asyncUnaryCall((req, out) -> {
                    out.onNext(req);
                    out.onCompleted();
                }))
                .addMethod(SERVER_STREAM, ServerCalls.asyncServerStreamingCall((req, out) -> {
                    // one response per request byte, each naming its index, until the client cancels; sent from
                    // another thread, so the call's executor is free to deliver the cancellation
                    io.grpc.stub.ServerCallStreamObserver<byte[]> o = (io.grpc.stub.ServerCallStreamObserver<byte[]>) out;
                    CountDownLatch cancelled = serverSawCancel;
                    o.setOnCancelHandler(cancelled::countDown);
                    java.util.concurrent.CompletableFuture.runAsync(() -> {
                        for (int i = 0; i < req.length && !o.isCancelled(); i++) {
                            while (!o.isReady() && !o.isCancelled()) {
                                // HTTP/2 flow control: queue no more than the transport takes
                                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                            }
                            out.onNext(new byte[] {(byte) i});
                        }
                        if (!o.isCancelled()) {
                            out.onCompleted();
                        }
                    });
                }))
                .addMethod(CLIENT_STREAM, ServerCalls.asyncClientStreamingCall(out -> new StreamObserver<>() {
                    long total;

                    @Override
                    public void onNext(byte[] value) {
                        total += value.length;
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        out.onNext(Long.toString(total).getBytes());
                        out.onCompleted();
                    }
                }))
                .addMethod(BIDI, ServerCalls.asyncBidiStreamingCall(out -> new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        out.onNext(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        out.onCompleted();
                    }
                }))
                .addMethod(SLOW, ServerCalls.asyncUnaryCall((req, out) -> group.schedule(() -> {
                    out.onNext(req);
                    out.onCompleted();
                }, 2, TimeUnit.SECONDS)))
                .build();
    }

    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#streams")
    void everyCallShape(String provider) throws Exception {
        Assumptions.assumeTrue(Jfabric.isAvailable(provider), () -> provider + " offers no RDM or MSG endpoint here");
        serverSawCancel = new CountDownLatch(1);
        JfabricAddress bindTo = io.jfabric.netty.Providers.serverAddress(provider);
        Server server = NettyServerBuilder.forAddress(bindTo)
                .channelType(JfabricServerChannel.class)
                .bossEventLoopGroup(group).workerEventLoopGroup(group)
                .maxInboundMessageSize(32 << 20)
                .addService(service()).build().start();
        ManagedChannel channel = NettyChannelBuilder.forAddress(server.getListenSockets().getFirst())
                .channelType(JfabricSocketChannel.class, JfabricAddress.class)
                .eventLoopGroup(group).usePlaintext().maxInboundMessageSize(32 << 20).build();
        try {
            byte[] hello = "hello over jfabric".getBytes();
            assertArrayEquals(hello, ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, hello));

            Iterator<byte[]> split = ClientCalls.blockingServerStreamingCall(channel, SERVER_STREAM, CallOptions.DEFAULT,
                    new byte[100]);
            int n = 0;
            while (split.hasNext()) {
                assertEquals((byte) n, split.next()[0]);
                n++;
            }
            assertEquals(100, n);

            assertEquals("600", new String(clientStream(channel, 3, 200)));

            assertEquals(50, bidi(channel, 50));

            StatusRuntimeException late = assertThrows(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(
                    channel, SLOW, CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), hello));
            assertEquals(Status.Code.DEADLINE_EXCEEDED, late.getStatus().getCode());

            io.grpc.ClientCall<byte[], byte[]> call = channel.newCall(SERVER_STREAM, CallOptions.DEFAULT);
            CountDownLatch first = new CountDownLatch(1);
            ClientCalls.asyncServerStreamingCall(call, new byte[1_000_000], new StreamObserver<>() {
                @Override
                public void onNext(byte[] value) {
                    first.countDown();
                }

                @Override
                public void onError(Throwable t) {
                }

                @Override
                public void onCompleted() {
                }
            });
            assertTrue(first.await(io.jfabric.netty.Providers.seconds(30), TimeUnit.SECONDS));
            call.cancel("test cancels", null);
            assertTrue(serverSawCancel.await(io.jfabric.netty.Providers.seconds(30), TimeUnit.SECONDS), "the server saw the client's cancellation");

            byte[] big = new byte[16 << 20];
            new Random(5).nextBytes(big);
            assertArrayEquals(big, ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, big));

            List<com.google.common.util.concurrent.ListenableFuture<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                calls.add(ClientCalls.futureUnaryCall(channel.newCall(UNARY, CallOptions.DEFAULT),
                        Integer.toString(i).getBytes()));
            }
            for (int i = 0; i < 100; i++) {
                assertEquals(Integer.toString(i), new String(calls.get(i).get(io.jfabric.netty.Providers.seconds(30), TimeUnit.SECONDS)));
            }
        } finally {
            channel.shutdownNow().awaitTermination(io.jfabric.netty.Providers.seconds(10), TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(io.jfabric.netty.Providers.seconds(10), TimeUnit.SECONDS);
        }
    }

    /**
     * A server bound to a host and port 0, and a channel whose target is "host:port": gRPC's DNS name resolver hands
     * the channel an InetSocketAddress, which it dials over {@link JfabricChannelOption#PROVIDER}.
     */
    @ParameterizedTest
    @MethodSource("io.jfabric.netty.Providers#hostAndPort")
    void aChannelReachesAServerByHostAndPort(String provider) throws Exception {
        Assumptions.assumeTrue(Jfabric.isAvailable(provider), () -> provider + " offers no RDM or MSG endpoint here");
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(io.jfabric.netty.Providers.NODE, 0))
                .channelType(JfabricServerChannel.class).withOption(JfabricChannelOption.PROVIDER, provider)
                .bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(service()).build().start();
        InetSocketAddress bound = ((JfabricAddress) server.getListenSockets().getFirst()).asInetSocketAddress();
        ManagedChannel channel = NettyChannelBuilder.forTarget(bound.getHostString() + ":" + bound.getPort())
                .channelType(JfabricSocketChannel.class).withOption(JfabricChannelOption.PROVIDER, provider)
                .eventLoopGroup(group).usePlaintext().build();
        try {
            byte[] hello = "hello by host and port".getBytes();
            assertArrayEquals(hello, ClientCalls.blockingUnaryCall(channel, UNARY,
                    CallOptions.DEFAULT.withDeadlineAfter(io.jfabric.netty.Providers.seconds(30), TimeUnit.SECONDS), hello));
        } finally {
            channel.shutdownNow().awaitTermination(io.jfabric.netty.Providers.seconds(10), TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(io.jfabric.netty.Providers.seconds(10), TimeUnit.SECONDS);
        }
    }

    private static byte[] clientStream(ManagedChannel channel, int messages, int size) throws Exception {
        java.util.concurrent.CompletableFuture<byte[]> result = new java.util.concurrent.CompletableFuture<>();
        StreamObserver<byte[]> in = ClientCalls.asyncClientStreamingCall(channel.newCall(CLIENT_STREAM, CallOptions.DEFAULT),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        result.complete(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        result.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        for (int i = 0; i < messages; i++) {
            in.onNext(new byte[size]);
        }
        in.onCompleted();
        return result.get(io.jfabric.netty.Providers.seconds(30), TimeUnit.SECONDS);
    }

    private static int bidi(ManagedChannel channel, int messages) throws Exception {
        AtomicInteger echoed = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        StreamObserver<byte[]> in = ClientCalls.asyncBidiStreamingCall(channel.newCall(BIDI, CallOptions.DEFAULT),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        echoed.incrementAndGet();
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.countDown();
                    }

                    @Override
                    public void onCompleted() {
                        done.countDown();
                    }
                });
        for (int i = 0; i < messages; i++) {
            in.onNext(new byte[] {(byte) i});
        }
        in.onCompleted();
        assertTrue(done.await(io.jfabric.netty.Providers.seconds(30), TimeUnit.SECONDS));
        return echoed.get();
    }
}
