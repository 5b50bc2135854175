package io.jfabric;

/** Mirrors {@code struct fi_cntr_attr} (events is always FI_CNTR_EVENTS_COMP). */
public final class CounterAttr {
    /** {@code wait_obj}: how {@link Counter#await} waits. */
    public WaitObj waitObj = WaitObj.UNSPEC;
    /** {@code wait_set}: the {@link WaitSet} this queue joins when {@code waitObj} is FI_WAIT_SET, else null. */
    public WaitSet waitSet;
    /** {@code flags}: 0. */
    public long flags;

    /** Attributes with every field unspecified: the provider chooses. */
    public CounterAttr() {
    }

    /**
     * Attributes that let the provider choose everything.
     *
     * @return a fresh CounterAttr
     */
    public static CounterAttr defaults() {
        return new CounterAttr();
    }
}
