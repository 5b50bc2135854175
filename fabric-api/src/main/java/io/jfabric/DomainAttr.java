package io.jfabric;

/** Mirrors {@code struct fi_domain_attr}. Zero or null means unspecified, as in libfabric's hints. */
public final class DomainAttr {
    public String name;
    public Threading threading = Threading.UNSPEC;
    public Progress controlProgress = Progress.UNSPEC;
    public Progress dataProgress = Progress.UNSPEC;
    public ResourceMgmt resourceMgmt = ResourceMgmt.UNSPEC;
    public AvType avType = AvType.UNSPEC;
    /** MrMode bits. */
    public int mrMode;
    public long mrKeySize;
    public long cqDataSize;
    public long cqCnt;
    public long epCnt;
    public long txCtxCnt;
    public long rxCtxCnt;
    public long maxEpTxCtx;
    public long maxEpRxCtx;
    public long maxEpStxCtx;
    public long maxEpSrxCtx;
    public long cntrCnt;
    public long mrIovLimit;
    /** Domain-level Caps bits (LOCAL_COMM, REMOTE_COMM, SHARED_AV ...). */
    public long caps;
    /** Domain-level Mode bits. */
    public long mode;
    public byte[] authKey;
    public long maxErrData;
    public long mrCnt;
    public int tclass;

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
        return c;
    }
}
