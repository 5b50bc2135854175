package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;

/**
 * Receive-buffer posting (libfabric's rxm_prepost_recv and rxm_repost_rx): keeps each connection's core
 * endpoint supplied with bounce buffers, untagged ones for rxm packets and, with dyn_rbuf, tagged ones for
 * the peer's headerless tagged messages. Also keeps the bound on buffers held by unexpected messages.
 */
final class RxmRxBuffers {
    /** Receive buffers of each kind a new connection starts with over a TCP core. */
    static final int RX_INITIAL = 2;

    private final RxmShared s;
    /** Buffers held by unexpected messages, bounded by the unexpected limit. */
    int unexpBuffers;
    /** A connection could not get all its buffers: progress tries again. */
    boolean needTopUp;
    /** The core shared receive context every connection takes its buffers from, or null: one set per connection. */
    final CoreSrx srx;

    RxmRxBuffers(RxmShared s) {
        this.s = s;
        this.srx = CoreSrx.open(s);
    }

    /**
     * Called by the CM adapter while opening a core endpoint for {@code c}: posts the first
     * {@link RxmShared#rxInitial} buffers of each kind. A connection that runs dry gets more (up to
     * msg_rx_size), so an endpoint with thousands of mostly idle peers holds a few buffers per peer, not
     * msg_rx_size of them: each posted buffer costs eager_limit bytes and a slot of the core CQ, which would
     * otherwise run out after capacity / (2 x msg_rx_size) connections and leave every later one with
     * nothing posted.
     */
    void prepost(RxmConnection<Endpoint> c, Endpoint core) {
        if (srx != null) {
            srx.fill(); // the first connection fills the shared context; later ones find it full
            return;
        }
        ConnData cd = RxmCm.data(c);
        cd.postedTagged = 0;
        cd.postedUntagged = 0;
        cd.heldTagged = 0;
        cd.heldUntagged = 0;
        cd.rxWant = s.rxInitial;
        fill(c, cd, core, false);
        if (s.dynRbuf) {
            fill(c, cd, core, true);
        }
    }

    /**
     * Posts pool buffers of one kind on {@code c} until it has its current want; when the unexpected bound
     * or the core (a full rx queue or CQ) stops it, a later progress call tops up again.
     */
    void fill(RxmConnection<Endpoint> c, ConnData cd, Endpoint core, boolean tagged) {
        if (srx != null) {
            srx.fill();
            return;
        }
        while ((tagged ? cd.postedTagged : cd.postedUntagged) < cd.rxWant
                && (tagged ? cd.postedTagged + cd.heldTagged : cd.postedUntagged + cd.heldUntagged) < s.rxTarget) {
            if (unexpBuffers >= s.params.unexpectedLimit()) {
                needTopUp = true;
                return;
            }
            if (!post(c, cd, core, tagged)) {
                int posted = tagged ? cd.postedTagged : cd.postedUntagged;
                if (posted > 0) {
                    // the core holds no more (its rx size or CQ): keep what it took instead of retrying on
                    // every progress call
                    cd.rxWant = posted;
                } else {
                    needTopUp = true; // nothing posted: the connection would stall, so retry until it takes one
                }
                return;
            }
        }
    }

    private boolean post(RxmConnection<Endpoint> c, ConnData cd, Endpoint core, boolean tagged) {
        RxBuf rx = s.pools.acquireRxBuf(tagged);
        rx.conn = c;
        rx.cd = cd;
        rx.generation = cd.generation;
        rx.coreEp = core;
        rx.orphan = false;
        int rc = tagged ? core.trecv(rx.mem, rx.mr, 0, 0, -1L, rx) : core.recv(rx.mem, rx.mr, 0, rx);
        if (rc != 0) {
            free(rx);
            return false;
        }
        if (tagged) {
            cd.postedTagged++;
        } else {
            cd.postedUntagged++;
        }
        return true;
    }

    /** Returns a buffer to the pool (its connection is gone, or it is surplus). */
    void free(RxBuf rx) {
        unhold(rx);
        s.pools.releaseRxBuf(rx);
    }

    /**
     * A buffer kept past its completion (an unexpected message, a rendezvous request being read) counts
     * against its connection's msg_rx_size until it comes back: a slow receiver's peer is held to that many
     * messages, after which the core's flow control pushes back on it.
     */
    static void hold(RxBuf rx, ConnData cd) {
        rx.held = true;
        if (rx.tagged) {
            cd.heldTagged++;
        } else {
            cd.heldUntagged++;
        }
    }

    private static void unhold(RxBuf rx) {
        if (!rx.held) {
            return;
        }
        rx.held = false;
        ConnData cd = rx.cd;
        if (cd != null && rx.generation == cd.generation) {
            if (rx.tagged) {
                cd.heldTagged--;
            } else {
                cd.heldUntagged--;
            }
        }
    }

    /**
     * A core receive completed into {@code rx}: one fewer posted, and a connection that ran dry gets twice
     * as many (the peer sends faster than we repost).
     */
    void consumed(RxBuf rx, ConnData cd) {
        if (srx != null) {
            return; // counted when it came back from the shared context
        }
        if ((rx.tagged ? --cd.postedTagged : --cd.postedUntagged) == 0 && cd.rxWant < s.rxTarget) {
            cd.rxWant = Math.min(s.rxTarget, cd.rxWant * 2);
        }
    }

    /** Gives a receive buffer back to its connection, or to the pool when the connection is gone or we are over the unexpected bound. */
    void repost(RxBuf rx) {
        unhold(rx);
        if (srx != null) {
            srx.repost(rx);
            return;
        }
        RxmConnection<Endpoint> c = rx.conn;
        ConnData cd = rx.cd;
        Endpoint core = c == null ? null : c.ep();
        if (c == null || core == null || rx.coreEp != core || rx.generation != cd.generation) {
            free(rx);
            return;
        }
        if (unexpBuffers >= s.params.unexpectedLimit()) {
            free(rx);
            needTopUp = true;
            return;
        }
        if ((rx.tagged ? cd.postedTagged : cd.postedUntagged) >= cd.rxWant) {
            free(rx); // a replacement was posted while this buffer held an unexpected message
            return;
        }
        int rc = rx.tagged ? core.trecv(rx.mem, rx.mr, 0, 0, -1L, rx) : core.recv(rx.mem, rx.mr, 0, rx);
        if (rc != 0) {
            free(rx);
            needTopUp = true;
            return;
        }
        if (rx.tagged) {
            cd.postedTagged++;
        } else {
            cd.postedUntagged++;
        }
    }

    /** Whether a top-up is due and the unexpected bound allows one. */
    boolean topUpDue() {
        return needTopUp && unexpBuffers < s.params.unexpectedLimit();
    }

    /** Tries again to give every connection its want. */
    void topUp() {
        needTopUp = false;
        if (srx != null) {
            srx.fill();
            return;
        }
        for (RxmConnection<Endpoint> c : s.cm.open()) {
            Endpoint core = c.ep();
            ConnData cd = RxmCm.data(c);
            fill(c, cd, core, false);
            if (s.dynRbuf) {
                fill(c, cd, core, true);
            }
        }
    }
}
