package io.jfabric;

/** Mirrors {@code struct fi_ep_attr}. */
public final class EndpointAttr {
    /** {@code type}: FI_EP_MSG, FI_EP_RDM or FI_EP_DGRAM. */
    public EndpointType type = EndpointType.UNSPEC;
    /** {@code protocol}: the wire protocol. */
    public Protocol protocol = Protocol.UNSPEC;
    /** {@code protocol_version}: the wire protocol's version. */
    public int protocolVersion;
    /** {@code max_msg_size}: the largest message or RMA transfer, in bytes; longer ones return -FI_EMSGSIZE. */
    public long maxMsgSize;
    /** {@code msg_prefix_size}: bytes the provider reserves at the start of buffers under FI_MSG_PREFIX. */
    public long msgPrefixSize;
    /** {@code max_order_raw_size}: reads after writes up to this many bytes are ordered (0 none, -1 any size). */
    public long maxOrderRawSize;
    /** {@code max_order_war_size}: writes after reads up to this many bytes are ordered (0 none, -1 any size). */
    public long maxOrderWarSize;
    /** {@code max_order_waw_size}: writes after writes up to this many bytes are ordered (0 none, -1 any size). */
    public long maxOrderWawSize;
    /** Tag bits format; 0 when tagged messaging is not offered. */
    public long memTagFormat;
    /** {@code tx_ctx_cnt}: transmit contexts; {@link Fabrics#SHARED_CONTEXT} for a shared one. */
    public long txCtxCnt;
    /** {@code rx_ctx_cnt}: receive contexts; {@link Fabrics#SHARED_CONTEXT} for a shared one. */
    public long rxCtxCnt;
    /** {@code auth_key}: the authorization key, or null. */
    public byte[] authKey;

    /** Attributes with every field unspecified. */
    public EndpointAttr() {
    }

    /**
     * A deep copy, as part of {@code fi_dupinfo}.
     *
     * @return an independent copy
     */
    public EndpointAttr copy() {
        EndpointAttr c = new EndpointAttr();
        c.type = type;
        c.protocol = protocol;
        c.protocolVersion = protocolVersion;
        c.maxMsgSize = maxMsgSize;
        c.msgPrefixSize = msgPrefixSize;
        c.maxOrderRawSize = maxOrderRawSize;
        c.maxOrderWarSize = maxOrderWarSize;
        c.maxOrderWawSize = maxOrderWawSize;
        c.memTagFormat = memTagFormat;
        c.txCtxCnt = txCtxCnt;
        c.rxCtxCnt = rxCtxCnt;
        c.authKey = authKey == null ? null : authKey.clone();
        return c;
    }
}
