package io.jfabric;

/** Mirrors {@code struct fi_av_attr}. */
public final class AvAttr {
    /** {@code type}: FI_AV_MAP or FI_AV_TABLE; UNSPEC lets the provider choose. */
    public AvType type = AvType.UNSPEC;
    /** Expected number of addresses; a hint. */
    public long count;
    /** FI_EVENT for asynchronous inserts reported on the bound EQ. */
    public long flags;
    /** {@code name}: a name for a shared AV; null for a private one. */
    public String name;

    /** FI_EVENT (the bit of FI_COMPLETION): inserts complete asynchronously with FI_AV_COMPLETE on the bound EQ. */
    public static final long EVENT = OpFlags.COMPLETION;
    /** FI_SYMMETRIC: every process inserts the same addresses in the same order. */
    public static final long SYMMETRIC = 1L << 59;

    /** Attributes with every field unspecified: the provider chooses the AV type. */
    public AvAttr() {
    }

    /**
     * Attributes of the given type.
     *
     * @param type the AV type
     * @return a fresh AvAttr
     */
    public static AvAttr of(AvType type) {
        AvAttr a = new AvAttr();
        a.type = type;
        return a;
    }
}
