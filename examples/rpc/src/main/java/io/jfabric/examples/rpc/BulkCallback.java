package io.jfabric.examples.rpc;

/** Completion of {@link RpcEngine#bulkTransfer}, as Mercury's hg_bulk_cb_t: status 0 or a negative errno. */
@FunctionalInterface
public interface BulkCallback {
    void onTransfer(int status, Object arg);
}
