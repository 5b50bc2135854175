package io.jfabric.netty.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.jfabric.netty.GroupTestBase;
import io.jfabric.netty.Jfabric;
import io.jfabric.netty.JfabricAddress;
import io.jfabric.netty.JfabricSocketChannel;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A gRPC call waiting on a server whose process is killed fails UNAVAILABLE within the peer-failure bound, with
 * no deadline and no gRPC keepalive: the client's channel only reads while it waits, and still learns of the
 * death (the provider's peer-failure report, or the stream's probes over the bridge).
 */
@Timeout(90)
class GrpcPeerDeathTest extends GroupTestBase {
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp;ofi_rxm", "libfabric:tcp;ofi_rxm"})
    void aCallToAKilledServerFailsUnavailable(String provider) throws Exception {
        Assumptions.assumeTrue(Jfabric.isAvailable(provider), () -> provider + " offers no RDM endpoint here");
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                GrpcServerProcess.class.getName(), JfabricAddress.any(provider).toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        ManagedChannel channel = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            JfabricAddress address = JfabricAddress.parse(out.readLine());
            channel = NettyChannelBuilder.forAddress(address).channelType(JfabricSocketChannel.class, JfabricAddress.class)
                    .eventLoopGroup(group).usePlaintext().build();
            Future<byte[]> call = ClientCalls.futureUnaryCall(channel.newCall(GrpcServerProcess.HANG, CallOptions.DEFAULT),
                    new byte[] {1});
            assertEquals("called", out.readLine(), "the server took the call");
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            long bound = provider.startsWith("libfabric:") ? 15 : 5;
            ExecutionException failed = assertThrows(ExecutionException.class, () -> call.get(bound, TimeUnit.SECONDS),
                    "the call failed within " + bound + " s of the server's death");
            StatusRuntimeException status = assertInstanceOf(StatusRuntimeException.class, failed.getCause());
            assertEquals(Status.Code.UNAVAILABLE, status.getStatus().getCode(), status.toString());
        } finally {
            server.destroyForcibly();
            if (channel != null) {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }
}
