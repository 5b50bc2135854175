package io.jfabric.provider.verbs;

import io.jfabric.util.ProviderParams;

/** The verbs provider's tunables, with libfabric's verbs names (FI_VERBS_TX_SIZE ...). */
final class VerbsParams {
    private VerbsParams() {
    }

    static final ProviderParams PARAMS = new ProviderParams("verbs");
    static final ProviderParams.IntParam TX_SIZE = PARAMS.integer("tx_size", 384,
            "Default maximum tx context size (send queue depth), capped by the device's max_qp_wr");
    static final ProviderParams.IntParam RX_SIZE = PARAMS.integer("rx_size", 384,
            "Default maximum rx context size (receive queue depth), capped by the device's max_qp_wr");
    static final ProviderParams.IntParam TX_IOV_LIMIT = PARAMS.integer("tx_iov_limit", 4,
            "Default maximum tx iov_limit (scatter/gather entries), capped by the device's max_sge");
    static final ProviderParams.IntParam RX_IOV_LIMIT = PARAMS.integer("rx_iov_limit", 4,
            "Default maximum rx iov_limit, capped by the device's max_sge");
    static final int DEFAULT_MIN_RNR_TIMER = 12;
    /**
     * rdma_cm leaves the responder's min_rnr_timer at 0, which the IB encoding reads as 655.36 ms: every RNR NAK
     * (a send arriving before its receive is posted) then stalls the sender for that long, so a receiver that
     * posts receives only as it consumes would run at about one message per 0.66 s.
     */
    static final ProviderParams.IntParam MIN_RNR_TIMER = PARAMS.integer("min_rnr_timer", DEFAULT_MIN_RNR_TIMER,
            "Set min_rnr_timer QP attribute (0 - 31): the delay a sender waits after an RNR NAK before it retries, "
                    + "in the IB encoding (12 = 0.64 ms, 1 = 0.01 ms, 0 = 655.36 ms)");
    /** libfabric's MR cache tunables keep their global names: FI_MR_CACHE_MAX_COUNT, FI_MR_CACHE_MAX_SIZE. */
    static final ProviderParams MR_CACHE = new ProviderParams("mr_cache");
    static final ProviderParams.IntParam MR_CACHE_MAX_COUNT = MR_CACHE.integer("max_count", 1024,
            "Most registrations the verbs MR cache keeps (0 disables the cache)");
    static final ProviderParams.LongParam MR_CACHE_MAX_SIZE = MR_CACHE.longParam("max_size", 1L << 30,
            "Most bytes the verbs MR cache keeps registered");
    static final ProviderParams.BoolParam MR_CACHE_REMOTE = PARAMS.bool("mr_cache_remote", false,
            "Also cache registrations with remote access. Faster for rendezvous protocols, but a closed MR's "
                    + "key then stays valid for remote access until the cache evicts it");
    /**
     * jfabric's own (libfabric's verbs has no keepalive): an RC connection notices a peer that stopped answering
     * only when something of its own is on the wire, so a side whose operations wait on the peer (rxm's rendezvous
     * sends wait for the peer's reads) would wait for good. A zero-length RDMA write now and then is such traffic;
     * it touches no memory and the peer sees no completion.
     */
    static final ProviderParams.IntParam KEEPALIVE_INTERVAL = PARAMS.integer("keepalive_interval", 1000,
            "Milliseconds between the zero-length RDMA writes that probe a connection while its CQ is read and idle;"
                    + " a peer that stopped answering then fails the probe after the transport's retries, and the"
                    + " connection ends with an EQ error and FI_SHUTDOWN (0: no probes)");
    static final ProviderParams.IntParam INLINE_SIZE = PARAMS.integer("inline_size", 64,
            "Default maximum inline size (inject_size); what the QP grants is what inject allows");
}
