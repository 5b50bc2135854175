package io.jfabric.examples.rpc;

/**
 * Completion of a forwarded RPC, as Mercury's hg_cb_t for HG_Forward: runs from {@link RpcEngine#trigger}.
 * {@code status} is 0 or a negative errno (ETIMEDOUT, ECANCELED, EHOSTDOWN when the target stopped
 * answering, or the server's own error); {@code output} is valid only during the call (it is the slot's
 * reused object) and null unless status is 0.
 */
@FunctionalInterface
public interface ResponseCallback<O> {
    void onResponse(long requestId, int status, O output, Object arg);
}
