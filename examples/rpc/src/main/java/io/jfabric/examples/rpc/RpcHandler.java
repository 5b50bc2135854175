package io.jfabric.examples.rpc;

/**
 * Server side of an RPC, as Mercury's hg_rpc_cb_t: runs from {@link RpcEngine#trigger} with the decoded
 * input, and answers later or at once with {@link Incoming#respond}. Every incoming request must be
 * answered once (respond or respondError); its receive buffer is reused only after that.
 */
@FunctionalInterface
public interface RpcHandler<I, O> {
    void handle(Incoming<I, O> request);
}
