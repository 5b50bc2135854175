package io.jfabric;

/** Mirrors {@code struct fi_cq_attr}. */
public final class CqAttr {
    /** Entries; 0 lets the provider choose. */
    public long size;
    public long flags;
    public CqFormat format = CqFormat.CONTEXT;
    public WaitObj waitObj = WaitObj.UNSPEC;

    public static CqAttr of(CqFormat format, long size) {
        CqAttr a = new CqAttr();
        a.format = format;
        a.size = size;
        return a;
    }
}
