package io.jfabric;

/** Mirrors {@code struct fi_eq_attr}. */
public final class EqAttr {
    public long size;
    public long flags;
    public WaitObj waitObj = WaitObj.UNSPEC;

    public static EqAttr defaults() {
        return new EqAttr();
    }
}
