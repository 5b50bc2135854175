package io.jfabric.netty.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.jfabric.netty.JfabricAddress;
import io.jfabric.netty.JfabricEventLoopGroup;
import io.jfabric.netty.JfabricServerChannel;
import io.netty.channel.EventLoopGroup;

/**
 * A gRPC server in a JVM of its own, for {@link GrpcPeerDeathTest}: it serves on the jfabric address args[0],
 * prints the address it listens on, and prints "called" for each call to {@link #HANG}, which it never answers,
 * until the test kills the process.
 */
public final class GrpcServerProcess {
    /** A unary method the server takes and never answers. */
    static final MethodDescriptor<byte[], byte[]> HANG =
            ByteArrayMarshaller.method("jfabric.Death", "Hang", MethodDescriptor.MethodType.UNARY);

    private GrpcServerProcess() {
    }

    public static void main(String[] args) throws Exception {
        EventLoopGroup group = new JfabricEventLoopGroup(1);
        ServerServiceDefinition service = ServerServiceDefinition.builder("jfabric.Death")
                .addMethod(HANG, ServerCalls.asyncUnaryCall((req, out) -> System.out.println("called")))
                .build();
        Server server = NettyServerBuilder.forAddress(JfabricAddress.parse(args[0]))
                .channelType(JfabricServerChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(service).build().start();
        System.out.println(server.getListenSockets().getFirst());
        Thread.sleep(120_000);
    }
}
