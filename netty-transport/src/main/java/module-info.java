/**
 * A Netty 4.2 transport on jfabric: {@link io.jfabric.netty.JfabricEventLoopGroup},
 * {@link io.jfabric.netty.JfabricServerChannel} and {@link io.jfabric.netty.JfabricSocketChannel} over any jfabric
 * RDM provider.
 */
module io.jfabric.netty {
    requires transitive io.jfabric;
    requires transitive io.netty.transport;
    requires io.netty.buffer;
    requires io.netty.common;

    uses io.jfabric.spi.FabricProvider;

    exports io.jfabric.netty;
}
