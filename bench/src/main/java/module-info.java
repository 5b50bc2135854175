/**
 * jfabric's performance tooling: JMH benchmarks of the hot paths ({@code io.jfabric.bench.jmh}), and
 * {@link io.jfabric.bench.Compare}, the engine of {@code bench/compare} (jfabric against libfabric's
 * fi_pingpong, raw floors, CSV and PNG plots).
 */
module io.jfabric.bench {
    requires io.jfabric;
    requires io.jfabric.util;
    requires io.jfabric.provider.tcp;
    requires io.jfabric.provider.shm;
    requires jmh.core;
    requires java.desktop;
    // the allocation test (compiled into this module) reads per-thread allocated bytes
    requires jdk.management;
    // bench/netty (io.jfabric.bench.netty): Netty and gRPC over jfabric against epoll
    requires io.jfabric.netty;
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.transport.classes.epoll;
    requires io.grpc;
    requires io.grpc.netty;
    requires io.grpc.stub;

    exports io.jfabric.bench;
    exports io.jfabric.bench.jmh;
}
