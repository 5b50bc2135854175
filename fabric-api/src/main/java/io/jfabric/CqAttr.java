package io.jfabric;

/** Mirrors {@code struct fi_cq_attr}. */
public final class CqAttr {
    /** {@code size}: entries the queue holds; 0 lets the provider choose. */
    public long size;
    /** {@code flags}: 0, or FI_AFFINITY (ignored). */
    public long flags;
    /** {@code format}: which {@link CqEntry} fields reads fill. */
    public CqFormat format = CqFormat.CONTEXT;
    /** {@code wait_obj}: how {@link CompletionQueue#sread} waits; FI_WAIT_NONE disallows blocking reads. */
    public WaitObj waitObj = WaitObj.UNSPEC;
    /** {@code wait_set}: the {@link WaitSet} this queue joins when {@code waitObj} is FI_WAIT_SET, else null. */
    public WaitSet waitSet;

    /** Attributes with format FI_CQ_FORMAT_CONTEXT and every other field unspecified. */
    public CqAttr() {
    }

    /**
     * Attributes of the given format and size.
     *
     * @param format the entry format
     * @param size entries the queue holds; 0 lets the provider choose
     * @return a fresh CqAttr
     */
    public static CqAttr of(CqFormat format, long size) {
        CqAttr a = new CqAttr();
        a.format = format;
        a.size = size;
        return a;
    }
}
