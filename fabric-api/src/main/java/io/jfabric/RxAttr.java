package io.jfabric;

/** Mirrors {@code struct fi_rx_attr}. */
public final class RxAttr {
    public long caps;
    public long mode;
    /** Default OpFlags of receive operations. */
    public long opFlags;
    public long msgOrder;
    public long compOrder;
    public long totalBufferedRecv;
    public long size;
    public long iovLimit;

    public RxAttr copy() {
        RxAttr c = new RxAttr();
        c.caps = caps;
        c.mode = mode;
        c.opFlags = opFlags;
        c.msgOrder = msgOrder;
        c.compOrder = compOrder;
        c.totalBufferedRecv = totalBufferedRecv;
        c.size = size;
        c.iovLimit = iovLimit;
        return c;
    }
}
