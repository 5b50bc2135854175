package io.jfabric;

/** Mirrors {@code struct fi_av_attr}. */
public final class AvAttr {
    public AvType type = AvType.UNSPEC;
    /** Expected number of addresses; a hint. */
    public long count;
    /** FI_EVENT for asynchronous inserts reported on the bound EQ. */
    public long flags;
    public String name;

    /** FI_EVENT (the bit of FI_COMPLETION): inserts complete asynchronously with FI_AV_COMPLETE on the bound EQ. */
    public static final long EVENT = OpFlags.COMPLETION;
    /** FI_SYMMETRIC: every process inserts the same addresses in the same order. */
    public static final long SYMMETRIC = 1L << 59;

    public static AvAttr of(AvType type) {
        AvAttr a = new AvAttr();
        a.type = type;
        return a;
    }
}
