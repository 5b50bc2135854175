/**
 * The verbs provider: RDMA (InfiniBand, RoCE, Soft-RoCE) through libibverbs and librdmacm, called with
 * FFM. Offers FI_EP_MSG over RC queue pairs, as libfabric's verbs provider.
 */
module io.jfabric.provider.verbs {
    requires io.jfabric;
    requires io.jfabric.util;

    exports io.jfabric.provider.verbs.ffi;
    exports io.jfabric.provider.verbs.ffi.generated;

    provides io.jfabric.spi.FabricProvider with io.jfabric.provider.verbs.VerbsProvider;
}
