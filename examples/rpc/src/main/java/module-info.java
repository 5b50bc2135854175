/**
 * A Mercury-style RPC and bulk-transfer layer over one jfabric RDM endpoint, with a file-copy server and
 * client and a benchmark: the worked example of the jfabric API for middleware authors.
 */
module io.jfabric.examples.rpc {
    requires io.jfabric;

    uses io.jfabric.spi.FabricProvider;

    exports io.jfabric.examples.rpc;
}
