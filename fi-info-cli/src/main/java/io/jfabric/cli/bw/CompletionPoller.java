package io.jfabric.cli.bw;

import io.jfabric.CompletionQueue;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.cli.pingpong.PeerWatch;

/**
 * Batched, allocation-free reads of one CQ for the benchmark loops: {@link #poll} returns how many entries
 * are in {@link #entries}, 0 when none, and turns an error completion into a {@link FabricException} that
 * names the operation (a benchmark has no use for a failed operation). Waits are bounded by a deadline.
 */
final class CompletionPoller {
    final CqEntry[] entries;
    private final CompletionQueue cq;
    private final CqErrEntry err = new CqErrEntry();
    private final String what;
    private final long timeoutNanos;
    private PeerWatch watch;
    private int idleChecks;

    CompletionPoller(CompletionQueue cq, int batch, String what, long timeoutMs) {
        this.cq = cq;
        this.entries = CqEntry.array(batch);
        this.what = what;
        this.timeoutNanos = timeoutMs <= 0 ? Long.MAX_VALUE / 4 : timeoutMs * 1_000_000L;
    }

    int poll() {
        int n = cq.read(entries, entries.length);
        if (n > 0) {
            return n;
        }
        if (n == -Errno.EAGAIN) {
            return 0;
        }
        if (n == -Errno.EAVAIL) {
            cq.readError(err, 0);
            throw new FabricException(err.err, what + (watch == null ? "" : " with the peer " + watch.peer())
                    + " completed with an error: " + cq.strerror(err.provErrno, err.errData) + " ("
                    + Errno.name(err.err) + ")");
        }
        throw new FabricException(-n, "fi_cq_read on the " + what + " CQ failed");
    }

    /** Names the peer in error messages, and lets {@link #checkDeadlineAndPeer} notice that it is gone. */
    void watch(PeerWatch w) {
        this.watch = w;
    }

    /**
     * {@link #checkDeadline}, and on every 256th call whether the peer is gone (a FabricException naming it).
     * Only for waits the peer must answer: at the end of a run a peer that is done may exit while we still
     * wait for our own last completion.
     */
    void checkDeadlineAndPeer(long deadline, String waitingFor) {
        if (watch != null && (++idleChecks & 255) == 0) {
            watch.check();
        }
        checkDeadline(deadline, waitingFor);
    }

    long deadline() {
        return System.nanoTime() + timeoutNanos;
    }

    void checkDeadline(long deadline, String waitingFor) {
        if (System.nanoTime() - deadline > 0) {
            throw new FabricException(Errno.ETIMEDOUT, "no " + waitingFor + " within " + timeoutNanos / 1_000_000
                    + " ms; is the peer still running?");
        }
    }
}
