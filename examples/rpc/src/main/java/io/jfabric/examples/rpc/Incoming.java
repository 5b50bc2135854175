package io.jfabric.examples.rpc;

import java.lang.foreign.MemorySegment;

/**
 * A request received by the server side: Mercury's hg_handle_t on the target side, given to the
 * {@link RpcHandler}. Pooled: its receive buffer is posted again once the response has been sent, so
 * the handler must not keep it (or its input) after responding.
 */
public final class Incoming<I, O> extends Triggerable {
    final IncomingRequests server;
    final int index;
    final MemorySegment recvBuf;
    final MemorySegment respBuf;
    final MemorySegment respPayload;
    final OpContext recvCtx;
    final OpContext respCtx;

    Rpc<I, O> rpc;
    int rpcId;
    int requestId;
    long origin;
    long length;
    I input;
    /** Decode target kept across requests of the same RPC id, so decoding does not allocate. */
    Object inputReuse;
    int inputReuseRpcId = -1;
    boolean responded;
    /** Receives only the engine's own requests (hello, ping). */
    final boolean internal;

    Incoming(IncomingRequests server, int index, MemorySegment recvBuf, MemorySegment respBuf, boolean internal) {
        this.server = server;
        this.internal = internal;
        this.index = index;
        this.recvBuf = recvBuf;
        this.respBuf = respBuf;
        this.respPayload = respBuf.asSlice(RpcEngine.HEADER);
        this.recvCtx = (e, err) -> server.onRequestReceived(this, e, err);
        this.respCtx = (e, err) -> server.onResponseSent(this, err);
    }

    /** The decoded input; valid until this request is answered. */
    public I input() {
        return input;
    }

    /** The requester's fi_addr in this engine's AV: the origin of bulk transfers for this request. */
    public long origin() {
        return origin;
    }

    public Rpc<I, O> rpc() {
        return rpc;
    }

    /** HG_Respond: sends {@code output} back; returns 0 or a negative errno (EMSGSIZE when it does not fit). */
    public int respond(O output) {
        return server.respond(this, output);
    }

    /** Answers with an error the requester's callback receives as its status. */
    public int respondError(int errno) {
        return server.respondError(this, -Math.abs(errno));
    }

    @Override
    void fire() {
        server.runHandler(this);
    }
}
