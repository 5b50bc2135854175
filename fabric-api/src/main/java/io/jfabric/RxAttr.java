package io.jfabric;

/** Mirrors {@code struct fi_rx_attr}. */
public final class RxAttr {
    /** {@code caps}: Caps bits of the receive side. */
    public long caps;
    /** {@code mode}: Mode bits of the receive side. */
    public long mode;
    /** Default OpFlags of receive operations. */
    public long opFlags;
    /** {@code msg_order}: MsgOrder bits; which received operations are processed in the order sent. */
    public long msgOrder;
    /**
     * {@code comp_order}: MsgOrder bits; FI_ORDER_STRICT when completions come in order, FI_ORDER_DATA when
     * received data is placed in order.
     */
    public long compOrder;
    /** {@code total_buffered_recv}: bytes the provider buffers for unexpected messages. */
    public long totalBufferedRecv;
    /** {@code size}: receives that may be posted at once. */
    public long size;
    /** {@code iov_limit}: buffers one receive may scatter into. */
    public long iovLimit;

    /** Attributes with every field unspecified. */
    public RxAttr() {
    }

    /**
     * A copy, as part of {@code fi_dupinfo}.
     *
     * @return an independent copy
     */
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
