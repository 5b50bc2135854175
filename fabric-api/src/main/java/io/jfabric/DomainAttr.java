package io.jfabric;

/** Mirrors {@code struct fi_domain_attr}. Zero or null means unspecified, as in libfabric's hints. */
public final class DomainAttr {
    /** {@code name}: the domain (for tcp, the interface; for verbs, the device). */
    public String name;
    /** {@code threading}: the threading model the application keeps. */
    public Threading threading = Threading.UNSPEC;
    /** {@code control_progress}: how control operations (connect, AV inserts) progress. */
    public Progress controlProgress = Progress.UNSPEC;
    /** {@code data_progress}: how data transfers progress. */
    public Progress dataProgress = Progress.UNSPEC;
    /** {@code resource_mgmt}: whether the provider protects queues from overrun. */
    public ResourceMgmt resourceMgmt = ResourceMgmt.UNSPEC;
    /** {@code av_type}: the AV type the domain offers. */
    public AvType avType = AvType.UNSPEC;
    /** MrMode bits. */
    public int mrMode;
    /** {@code mr_key_size}: bytes of an MR key. */
    public long mrKeySize;
    /** {@code cq_data_size}: bytes of remote CQ data an operation may carry (0 to 8). */
    public long cqDataSize;
    /** {@code cq_cnt}: how many CQs the domain supports. */
    public long cqCnt;
    /** {@code ep_cnt}: how many endpoints the domain supports. */
    public long epCnt;
    /** {@code tx_ctx_cnt}: transmit contexts of the domain. */
    public long txCtxCnt;
    /** {@code rx_ctx_cnt}: receive contexts of the domain. */
    public long rxCtxCnt;
    /** {@code max_ep_tx_ctx}: transmit contexts per endpoint. */
    public long maxEpTxCtx;
    /** {@code max_ep_rx_ctx}: receive contexts per endpoint. */
    public long maxEpRxCtx;
    /** {@code max_ep_stx_ctx}: shared transmit contexts per endpoint. */
    public long maxEpStxCtx;
    /** {@code max_ep_srx_ctx}: shared receive contexts per endpoint. */
    public long maxEpSrxCtx;
    /** {@code cntr_cnt}: how many counters the domain supports. */
    public long cntrCnt;
    /** {@code mr_iov_limit}: buffers one registration may cover. */
    public long mrIovLimit;
    /** Domain-level Caps bits (LOCAL_COMM, REMOTE_COMM, SHARED_AV ...). */
    public long caps;
    /** Domain-level Mode bits. */
    public long mode;
    /** {@code auth_key}: the authorization key, or null. */
    public byte[] authKey;
    /** {@code max_err_data}: bytes of provider error data an error entry may carry. */
    public long maxErrData;
    /** {@code mr_cnt}: how many memory regions the domain supports. */
    public long mrCnt;
    /** {@code tclass}: the traffic class (FI_TC_*); 0 for unspecified. */
    public int tclass;
    /**
     * Whether {@link Domain#registerMemory} accepts heap segments (jfabric only: libfabric has no heap memory).
     * True where the provider moves registered data by copying (tcp, tcp;ofi_rxm); elsewhere a heap segment is
     * refused with EINVAL. Not matched against hints.
     */
    public boolean mrHeapSegments;

    /** Attributes with every field unspecified. */
    public DomainAttr() {
    }

    /**
     * A deep copy, as part of {@code fi_dupinfo}.
     *
     * @return an independent copy
     */
    public DomainAttr copy() {
        DomainAttr c = new DomainAttr();
        c.name = name;
        c.threading = threading;
        c.controlProgress = controlProgress;
        c.dataProgress = dataProgress;
        c.resourceMgmt = resourceMgmt;
        c.avType = avType;
        c.mrMode = mrMode;
        c.mrKeySize = mrKeySize;
        c.cqDataSize = cqDataSize;
        c.cqCnt = cqCnt;
        c.epCnt = epCnt;
        c.txCtxCnt = txCtxCnt;
        c.rxCtxCnt = rxCtxCnt;
        c.maxEpTxCtx = maxEpTxCtx;
        c.maxEpRxCtx = maxEpRxCtx;
        c.maxEpStxCtx = maxEpStxCtx;
        c.maxEpSrxCtx = maxEpSrxCtx;
        c.cntrCnt = cntrCnt;
        c.mrIovLimit = mrIovLimit;
        c.caps = caps;
        c.mode = mode;
        c.authKey = authKey == null ? null : authKey.clone();
        c.maxErrData = maxErrData;
        c.mrCnt = mrCnt;
        c.tclass = tclass;
        c.mrHeapSegments = mrHeapSegments;
        return c;
    }
}
