package io.jfabric;

/** Mirrors {@code struct fi_eq_attr}. */
public final class EqAttr {
    /** {@code size}: entries the queue holds; 0 lets the provider choose. */
    public long size;
    /** {@code flags}: 0, or FI_WRITE as in libfabric (jfabric always allows {@link EventQueue#write}). */
    public long flags;
    /** {@code wait_obj}: how {@link EventQueue#sread} waits. */
    public WaitObj waitObj = WaitObj.UNSPEC;
    /** {@code wait_set}: the {@link WaitSet} this queue joins when {@code waitObj} is FI_WAIT_SET, else null. */
    public WaitSet waitSet;

    /** Attributes with every field unspecified (0): the provider chooses. */
    public EqAttr() {
    }

    /**
     * Attributes that let the provider choose everything.
     *
     * @return a fresh EqAttr
     */
    public static EqAttr defaults() {
        return new EqAttr();
    }
}
