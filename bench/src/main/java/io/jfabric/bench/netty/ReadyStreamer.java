package io.jfabric.bench.netty;

import io.grpc.stub.ServerCallStreamObserver;

/**
 * A server stream that writes only while the call {@link ServerCallStreamObserver#isReady() is ready}, and goes on
 * when gRPC says it is ready again: the flow control grpc-java's own benchmarks keep, so unsent messages do not pile
 * up in gRPC's and Netty's queues as they do behind a loop of {@code onNext} calls.
 */
final class ReadyStreamer implements Runnable {
    private final ServerCallStreamObserver<byte[]> out;
    private final byte[] message;
    private final int count;
    private int sent;
    private boolean completed;

    ReadyStreamer(ServerCallStreamObserver<byte[]> out, byte[] message, int count) {
        this.out = out;
        this.message = message;
        this.count = count;
    }

    /** Installs this as the call's ready handler and writes what the call takes now (from the service method). */
    void start() {
        out.setOnReadyHandler(this);
        run();
    }

    /** gRPC runs its ready handler on the call's serialized executor, as it runs the method: never two at once. */
    @Override
    public void run() {
        while (sent < count && out.isReady()) {
            out.onNext(message);
            sent++;
        }
        if (sent == count && !completed) {
            completed = true;
            out.onCompleted();
        }
    }
}
