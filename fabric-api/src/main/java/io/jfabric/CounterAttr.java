package io.jfabric;

/** Mirrors {@code struct fi_cntr_attr} (events is always FI_CNTR_EVENTS_COMP). */
public final class CounterAttr {
    /** {@code wait_obj}: how {@link Counter#await} waits. */
    public WaitObj waitObj = WaitObj.UNSPEC;
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
