package io.jfabric.examples.rpc;

import java.lang.foreign.MemorySegment;

/**
 * A client request in flight: Mercury's hg_handle_t on the origin side. Pooled; its buffers are slices
 * of the engine's registered pool. It is free again only when its callback has run and both operations
 * it posted (the send, the receive of the response) have completed, so nothing still posted ever points
 * at a reused slot.
 */
final class RequestSlot extends Triggerable {
    static final int INTERNAL_NONE = 0;
    static final int INTERNAL_HELLO = 1;
    static final int INTERNAL_PING = 2;

    final RpcEngine engine;
    final int index;
    final MemorySegment sendBuf;
    final MemorySegment sendPayload;
    final MemorySegment recvBuf;
    final OpContext sendCtx;
    final OpContext recvCtx;

    int generation;
    boolean active;
    Rpc<Object, Object> rpc;
    Target target;
    ResponseCallback<Object> callback;
    Object arg;
    BulkHandle attached;
    int internal;
    long deadlineNanos;
    boolean sendDone;
    boolean recvDone;
    boolean finished;
    boolean callbackDone;
    int status;
    long recvLength;
    /** Decode target kept across requests of the same RPC id, so decoding does not allocate. */
    Object outputReuse;
    int outputReuseRpcId = -1;

    RequestSlot(RpcEngine engine, int index, MemorySegment sendBuf, MemorySegment recvBuf) {
        this.engine = engine;
        this.index = index;
        this.sendBuf = sendBuf;
        this.sendPayload = sendBuf.asSlice(RpcEngine.HEADER);
        this.recvBuf = recvBuf;
        this.sendCtx = (e, err) -> engine.onRequestSent(this, err);
        this.recvCtx = (e, err) -> engine.onResponseReceived(this, e, err);
    }

    int requestId() {
        return (generation << 16) | index;
    }

    @Override
    void fire() {
        engine.runResponseCallback(this);
    }

    @Override
    public String toString() {
        return "RequestSlot[" + index + "/" + generation + (rpc == null ? "" : " " + rpc) + "]";
    }
}
