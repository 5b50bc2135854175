/**
 * The libfabric bridge: native libfabric providers behind the jfabric API, through FFM.
 */
module io.jfabric.provider.ofi {
    exports io.jfabric.provider.ofi.ffi;
}
