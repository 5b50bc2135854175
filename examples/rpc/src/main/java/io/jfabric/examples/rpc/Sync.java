package io.jfabric.examples.rpc;

import io.jfabric.Errno;
import io.jfabric.FabricException;

/**
 * Waits for one forwarded RPC by driving progress and trigger: the blocking call control-path code
 * wants (open a file, shut a server down). Not for the hot path, where callbacks keep many in flight.
 */
public final class Sync<O> implements ResponseCallback<O> {
    private boolean done;
    private int status;
    private O output;
    private final Copier<O> copier;

    /** Copies an output out of the engine's reused object, since it is only valid during the callback. */
    @FunctionalInterface
    public interface Copier<O> {
        O copy(O output);
    }

    public Sync(Copier<O> copier) {
        this.copier = copier;
    }

    @Override
    public void onResponse(long requestId, int status, O out, Object arg) {
        this.status = status;
        this.output = status == 0 && out != null ? copier.copy(out) : null;
        this.done = true;
    }

    /** Forwards and waits; returns the output or throws FabricException with the request's errno. */
    public static <I, O> O call(RpcEngine engine, Target target, Rpc<I, O> rpc, I input, long timeoutMillis,
                                Copier<O> copier) {
        Sync<O> s = new Sync<>(copier);
        long id = engine.forward(target, rpc, input, null, timeoutMillis, s, null);
        if (id < 0) {
            throw new FabricException((int) -id, "forwarding " + rpc.name() + " to " + target + " failed");
        }
        while (!s.done) {
            engine.progress(100);
            engine.trigger(64);
        }
        if (s.status < 0) {
            throw new FabricException(-s.status, rpc.name() + " to " + target + " failed"
                    + (s.status == -Errno.ETIMEDOUT ? " (no answer within " + timeoutMillis + " ms)" : ""));
        }
        return s.output;
    }
}
