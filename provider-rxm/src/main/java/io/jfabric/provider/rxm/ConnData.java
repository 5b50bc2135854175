package io.jfabric.provider.rxm;

import java.util.ArrayDeque;

/**
 * The data-path state rxm keeps per connection (libfabric's rxm_conn lists): transmits waiting because
 * the core said EAGAIN, transmits in flight (to fail them if the peer goes away), SAR receptions in
 * progress, and the receive buffers posted on its core endpoint. {@link #generation} changes each time
 * the connection is torn down, so completions that arrive late for an older incarnation are ignored.
 */
final class ConnData {
    int generation;
    /** TxBufs ready to post, TxOps with SAR segments left, RecvEntries with reads or a done packet left. */
    final ArrayDeque<DeferredWork> deferred = new ArrayDeque<>();
    TxOp inflight;
    RecvEntry activeRecv;
    Unexpected activeUnexp;
    RecvEntry rndvWait;
    int postedUntagged;
    int postedTagged;
    /** Buffers of each kind this connection keeps posted now: starts small, doubles each time it runs dry. */
    int rxWant;
    /** Buffers of each kind kept past their completion (unexpected messages, rendezvous requests). */
    int heldUntagged;
    int heldTagged;
    /** Whether an operation got EAGAIN while this connection was being set up (and the kind it was). */
    boolean waiting;
    boolean waitingTagged;
    /** Whether the current incarnation ever reached CONNECTED. */
    boolean everConnected;
    /**
     * Errno of the last connect that failed (0 if none): the next operation to the peer returns it once
     * instead of EAGAIN, so no retry loop spins on a peer that is gone (libfabric #7441); the operation
     * after that reconnects (#6682).
     */
    int connectFailure;
    boolean queuedForDeferred;
    /** The peer's pid when its rendezvous data can be copied straight from its memory (RxmSameHost), else 0. */
    int sameHostPid;
    /**
     * The core took FI_OPT_JF_COALESCE_SENDS (jfabric's tcp): rxm then chooses which of its sends may wait for
     * the next progress call (the application's eager sends, as FI_MORE), and its own protocol messages never do.
     */
    boolean coreHoldsBursts;
    /** AV version last searched for this peer's fi_addr (FI_SOURCE for peers that connected first). */
    long avVersionSeen = -1;

    void link(TxOp op) {
        op.prev = null;
        op.next = inflight;
        if (inflight != null) {
            inflight.prev = op;
        }
        inflight = op;
    }

    void unlink(TxOp op) {
        if (op.prev == null) {
            if (inflight == op) {
                inflight = op.next;
            }
        } else {
            op.prev.next = op.next;
        }
        if (op.next != null) {
            op.next.prev = op.prev;
        }
        op.prev = op.next = null;
    }
}
