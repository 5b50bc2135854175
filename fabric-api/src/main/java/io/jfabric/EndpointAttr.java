package io.jfabric;

/** Mirrors {@code struct fi_ep_attr}. */
public final class EndpointAttr {
    public EndpointType type = EndpointType.UNSPEC;
    public Protocol protocol = Protocol.UNSPEC;
    public int protocolVersion;
    public long maxMsgSize;
    public long msgPrefixSize;
    public long maxOrderRawSize;
    public long maxOrderWarSize;
    public long maxOrderWawSize;
    /** Tag bits format; 0 when tagged messaging is not offered. */
    public long memTagFormat;
    public long txCtxCnt;
    public long rxCtxCnt;
    public byte[] authKey;

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
