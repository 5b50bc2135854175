/**
 * The libfabric bridge: native libfabric providers (tcp, shm, efa, cxi, psm3, verbs ...) behind the
 * jfabric API, through FFM bindings of libfabric 1.17 ({@code io.jfabric.provider.libfabric.ffi}).
 */
module io.jfabric.provider.libfabric {
    requires io.jfabric;

    exports io.jfabric.provider.libfabric.ffi;

    provides io.jfabric.spi.FabricProvider with io.jfabric.provider.libfabric.LibfabricProvider;
}
