package io.jfabric;

/** Mirrors {@code struct fi_tx_attr}. */
public final class TxAttr {
    public long caps;
    public long mode;
    /** Default OpFlags of transmit operations. */
    public long opFlags;
    public long msgOrder;
    public long compOrder;
    public long injectSize;
    public long size;
    public long iovLimit;
    public long rmaIovLimit;
    public int tclass;

    public TxAttr copy() {
        TxAttr c = new TxAttr();
        c.caps = caps;
        c.mode = mode;
        c.opFlags = opFlags;
        c.msgOrder = msgOrder;
        c.compOrder = compOrder;
        c.injectSize = injectSize;
        c.size = size;
        c.iovLimit = iovLimit;
        c.rmaIovLimit = rmaIovLimit;
        c.tclass = tclass;
        return c;
    }
}
