/** The jfabric command line (interim descriptor from branch conf; the disc branch owns this module). */
module io.jfabric.cli {
    requires io.jfabric;
    requires info.picocli;

    opens io.jfabric.cli.pingpong to info.picocli;
}
