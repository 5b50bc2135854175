package io.jfabric;

/** Mirrors {@code struct fi_cntr_attr} (events is always FI_CNTR_EVENTS_COMP). */
public final class CounterAttr {
    public WaitObj waitObj = WaitObj.UNSPEC;
    public long flags;

    public static CounterAttr defaults() {
        return new CounterAttr();
    }
}
