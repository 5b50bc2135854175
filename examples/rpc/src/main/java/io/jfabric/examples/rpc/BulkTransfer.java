package io.jfabric.examples.rpc;

import io.jfabric.CqEntry;

/** One bulk transfer in flight, split into RMA operations no longer than the endpoint's limit. Pooled. */
final class BulkTransfer extends Triggerable implements OpContext {
    final RpcEngine engine;
    final int index;
    int outstanding;
    boolean allPosted;
    int status;
    BulkCallback callback;
    Object arg;

    BulkTransfer(RpcEngine engine, int index) {
        this.engine = engine;
        this.index = index;
    }

    @Override
    public void complete(CqEntry entry, int err) {
        engine.onBulkChunkDone(this, err);
    }

    @Override
    void fire() {
        engine.runBulkCallback(this);
    }
}
