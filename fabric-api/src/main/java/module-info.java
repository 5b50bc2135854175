/**
 * jfabric's public API: libfabric's object model in Java (see {@link io.jfabric.Fabrics}) and the
 * provider SPI ({@link io.jfabric.spi.FabricProvider}).
 */
module io.jfabric {
    exports io.jfabric;
    exports io.jfabric.spi;

    uses io.jfabric.spi.FabricProvider;
    uses io.jfabric.spi.WaitSupport;
}
