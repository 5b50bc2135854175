package io.jfabric.examples.rpc;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.jfabric.examples.rpc.RpcEngine.HEADER;
import static io.jfabric.examples.rpc.RpcEngine.POST_RETRY_NANOS;
import static io.jfabric.examples.rpc.RpcEngine.RPC_HELLO;
import static io.jfabric.examples.rpc.RpcEngine.RPC_PING;

/**
 * The server side of the engine: keeps its pooled request buffers posted, answers the engine's own
 * hello and ping, queues application requests for their handler and sends the responses (HG_Respond).
 */
final class IncomingRequests {
    private static final System.Logger LOG = System.getLogger("jfabric.examples.rpc");
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private final RpcEngine engine;
    private final FabricResources res;
    private final EngineProgress progress;
    private final MemoryRegion poolDesc;

    /** {@code poolDesc}: the descriptor of the engine's registered buffer pool, which the requests live in. */
    IncomingRequests(RpcEngine engine, EngineProgress progress, MemoryRegion poolDesc) {
        this.engine = engine;
        this.res = engine.resources();
        this.progress = progress;
        this.poolDesc = poolDesc;
    }

    int postIncoming(Incoming<?, ?> in) {
        in.responded = false;
        in.input = null;
        long until = System.nanoTime() + POST_RETRY_NANOS;
        int rc;
        long tag = in.internal ? Tags.INTERNAL : 0;
        while ((rc = res.ep.trecv(in.recvBuf, poolDesc, Fabrics.ADDR_UNSPEC, tag, Tags.REQUEST_IGNORE, in.recvCtx))
                == -Errno.EAGAIN && progress.drainUntil(until)) {
            // receive queue full
        }
        if (rc < 0 && progress.running()) {
            LOG.log(System.Logger.Level.ERROR, "re-posting a request buffer failed ({0}); the server has one fewer",
                    Errno.name(-rc));
        }
        return rc;
    }

    @SuppressWarnings("unchecked")
    void onRequestReceived(Incoming<?, ?> in, CqEntry e, int err) {
        if (err != 0) {
            if (err != Errno.ECANCELED && progress.running()) {
                LOG.log(System.Logger.Level.WARNING, "a request receive failed ({0})", Errno.name(err));
                postIncoming(in);
            }
            return;
        }
        Incoming<Object, Object> req = (Incoming<Object, Object>) in;
        req.rpcId = Tags.rpcId(e.tag);
        req.requestId = Tags.requestId(e.tag);
        req.length = e.len;
        req.origin = e.len >= HEADER ? in.recvBuf.get(LONG, 0) : -1;
        if (req.rpcId == RPC_HELLO) {
            byte[] addr = new byte[(int) (e.len - HEADER)]; // once per client: control path
            MemorySegment.copy(in.recvBuf, ValueLayout.JAVA_BYTE, HEADER, addr, 0, addr.length);
            try {
                req.origin = engine.peerIdLocked(addr);
            } catch (FabricException ex) {
                LOG.log(System.Logger.Level.WARNING, "hello from an address the AV refused: {0}", ex.getMessage());
                postIncoming(in);
                return;
            }
            in.respPayload.set(LONG, 0, req.origin);
            sendResponse(req, 0, 8);
            return;
        }
        if (req.origin < 0) {
            postIncoming(in); // no hello before it: nowhere to answer
            return;
        }
        if (req.rpcId == RPC_PING) {
            sendResponse(req, 0, 0);
            return;
        }
        Rpc<Object, Object> rpc = in.internal ? null : engine.rpc(req.rpcId);
        if (rpc == null || rpc.handler == null) {
            sendResponse(req, -Errno.ENOSYS, 0);
            return;
        }
        req.rpc = rpc;
        progress.ready(req);
    }

    @SuppressWarnings("unchecked")
    void runHandler(Incoming<?, ?> in) {
        Incoming<Object, Object> req = (Incoming<Object, Object>) in;
        Rpc<Object, Object> rpc = req.rpc;
        try {
            Object reuse = req.inputReuseRpcId == rpc.id ? req.inputReuse : null;
            req.input = rpc.input.decode(req.recvBuf.asSlice(HEADER, req.length - HEADER), reuse);
            req.inputReuse = req.input;
            req.inputReuseRpcId = rpc.id;
        } catch (RuntimeException e) {
            req.respondError(Errno.EINVAL);
            return;
        }
        rpc.handler.handle(req);
    }

    <O> int respond(Incoming<?, O> in, O output) {
        progress.lock();
        try {
            if (in.responded) {
                return -Errno.EALREADY;
            }
            long n;
            try {
                n = in.rpc.output.encode(output, in.respPayload);
            } catch (RuntimeException e) {
                n = -1;
            }
            if (n < 0) {
                return -Errno.EMSGSIZE;
            }
            return sendResponse(in, 0, n);
        } finally {
            progress.unlock();
        }
    }

    int respondError(Incoming<?, ?> in, int status) {
        progress.lock();
        try {
            if (in.responded) {
                return -Errno.EALREADY;
            }
            return sendResponse(in, status, 0);
        } finally {
            progress.unlock();
        }
    }

    private int sendResponse(Incoming<?, ?> in, int status, long payload) {
        in.responded = true;
        in.respBuf.set(INT, 0, status);
        in.respBuf.set(INT, 4, 0);
        MemorySegment msg = in.respBuf.asSlice(0, HEADER + payload);
        long until = System.nanoTime() + POST_RETRY_NANOS;
        int rc;
        while ((rc = res.ep.tsend(msg, poolDesc, in.origin, Tags.response(in.rpcId, in.requestId), in.respCtx))
                == -Errno.EAGAIN && progress.drainUntil(until)) {
            // transmit queue full
        }
        if (rc < 0) {
            postIncoming(in);
        }
        return rc;
    }

    void onResponseSent(Incoming<?, ?> in, int err) {
        if (err != 0 && progress.running()) {
            LOG.log(System.Logger.Level.DEBUG, "a response was not delivered ({0})", Errno.name(err));
        }
        if (progress.running()) {
            postIncoming(in);
        }
    }
}
