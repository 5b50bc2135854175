package io.jfabric;

/** Mirrors {@code struct fi_tx_attr}. */
public final class TxAttr {
    /** {@code caps}: Caps bits of the transmit side. */
    public long caps;
    /** {@code mode}: Mode bits of the transmit side. */
    public long mode;
    /** Default OpFlags of transmit operations. */
    public long opFlags;
    /** {@code msg_order}: MsgOrder bits; which transmit operations stay in submission order. */
    public long msgOrder;
    /** {@code comp_order}: MsgOrder bits; FI_ORDER_STRICT when completions come in submission order. */
    public long compOrder;
    /** {@code inject_size}: the largest inject, in bytes. */
    public long injectSize;
    /** {@code size}: transmit operations that may be outstanding at once. */
    public long size;
    /** {@code iov_limit}: buffers one transmit may gather. */
    public long iovLimit;
    /** {@code rma_iov_limit}: remote buffers one RMA may address. */
    public long rmaIovLimit;
    /** {@code tclass}: the traffic class; 0 for unspecified. */
    public int tclass;

    /** Attributes with every field unspecified. */
    public TxAttr() {
    }

    /**
     * A copy, as part of {@code fi_dupinfo}.
     *
     * @return an independent copy
     */
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
