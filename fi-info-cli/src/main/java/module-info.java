/** The {@code jfabric} command line: {@code jfabric info} (libfabric's fi_info), {@code pingpong} and the other tools. */
module io.jfabric.cli {
    requires io.jfabric;
    requires info.picocli;
    requires HdrHistogram;

    uses io.jfabric.spi.FabricProvider;

    opens io.jfabric.cli to info.picocli;
    opens io.jfabric.cli.pingpong to info.picocli;
    opens io.jfabric.cli.bw to info.picocli;
}
