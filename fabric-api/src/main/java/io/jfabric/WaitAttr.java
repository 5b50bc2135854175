package io.jfabric;

/** Mirrors {@code struct fi_wait_attr} (fi_poll(3)): how a {@link WaitSet} waits. */
public final class WaitAttr {
    /**
     * {@code wait_obj}: FI_WAIT_UNSPEC, FI_WAIT_FD, FI_WAIT_MUTEX_COND or FI_WAIT_YIELD. A Java program waits
     * through {@link WaitSet#await}, so every one of them parks the calling thread in Java; none exposes a
     * file descriptor (see {@link WaitSet}).
     */
    public WaitObj waitObj = WaitObj.UNSPEC;
    /** {@code flags}: reserved, 0. */
    public long flags;

    /** Attributes with wait object FI_WAIT_UNSPEC and no flags. */
    public WaitAttr() {
    }

    /**
     * Attributes that let the provider choose the wait object.
     *
     * @return a fresh WaitAttr
     */
    public static WaitAttr defaults() {
        return new WaitAttr();
    }
}
