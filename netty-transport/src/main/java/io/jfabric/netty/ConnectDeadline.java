package io.jfabric.netty;

import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

import java.net.ConnectException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * When a client's connect gives up: at CONNECT_TIMEOUT_MILLIS, and, over the bridge's native RDM providers, which
 * report no peer's failure, once the provider has refused the CONNECT with EAGAIN for {@link #UNREACHED_MILLIS}.
 * Native ofi_rxm (libfabric 1.17) retries a refused or unanswered connection on every send and reports neither, so
 * a CONNECT it never takes finds no listener. Runs on the channel's loop.
 */
final class ConnectDeadline {
    /** As long as a probe may be refused before its peer counts as gone. */
    static final long UNREACHED_MILLIS = FrameStream.PROBE_TIMEOUT_NANOS / 1_000_000;

    private final EventLoop loop;
    private final JfabricAddress remote;
    private final int timeoutMillis;
    private final Consumer<ConnectException> fail;
    private Future<?> timer;

    private ConnectDeadline(EventLoop loop, JfabricAddress remote, int timeoutMillis, Consumer<ConnectException> fail) {
        this.loop = loop;
        this.remote = remote;
        this.timeoutMillis = timeoutMillis;
        this.fail = fail;
    }

    /**
     * Starts the clock of a connect to {@code remote} whose CONNECT {@code stream} sends; {@code fail} fails the
     * connect with the exception that says why. A timeout of 0 or less waits for ever where the provider reports.
     */
    static ConnectDeadline start(EventLoop loop, JfabricAddress remote, int timeoutMillis, FrameStream stream,
            Consumer<ConnectException> fail) {
        ConnectDeadline d = new ConnectDeadline(loop, remote, timeoutMillis, fail);
        long start = System.nanoTime();
        long deadline = timeoutMillis > 0 ? start + timeoutMillis * 1_000_000L : Long.MAX_VALUE;
        if (stream.needsProbes() && (timeoutMillis <= 0 || timeoutMillis > UNREACHED_MILLIS)) {
            d.timer = loop.schedule(() -> {
                if (stream.handshakePending()) {
                    fail.accept(new ConnectException("jfabric connect to " + remote + " failed: the provider refused"
                            + " the CONNECT with EAGAIN for " + UNREACHED_MILLIS + " ms (nothing listens there, or it"
                            + " does not answer: native ofi_rxm reports neither)"));
                } else if (deadline != Long.MAX_VALUE) {
                    d.timeoutIn(deadline - System.nanoTime());
                }
            }, UNREACHED_MILLIS, TimeUnit.MILLISECONDS);
        } else if (timeoutMillis > 0) {
            d.timeoutIn(deadline - start);
        }
        return d;
    }

    private void timeoutIn(long nanos) {
        timer = loop.schedule(() -> fail.accept(new ConnectTimeoutException("jfabric connect to " + remote
                + " timed out after " + timeoutMillis + " ms")), nanos, TimeUnit.NANOSECONDS);
    }

    /** The connect ended (connected, failed, cancelled or closed): nothing more fires. */
    void cancel() {
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
