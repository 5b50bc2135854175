/**
 * The libfabric provider, jfabric's bridge to native libfabric: native libfabric providers (tcp, shm, efa,
 * cxi, psm3, verbs ...) behind the jfabric API, through FFM bindings of libfabric 1.17 (hand-written in
 * {@code io.jfabric.provider.libfabric.ffi}, generated in {@code io.jfabric.provider.libfabric.ffi.generated}).
 */
module io.jfabric.provider.libfabric {
    requires io.jfabric;
    requires io.jfabric.util;

    exports io.jfabric.provider.libfabric.ffi;
    exports io.jfabric.provider.libfabric.ffi.generated;

    provides io.jfabric.spi.FabricProvider with io.jfabric.provider.libfabric.LibfabricProvider;
}
