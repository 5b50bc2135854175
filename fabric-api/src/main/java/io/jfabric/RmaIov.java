package io.jfabric;

/** Mirrors {@code struct fi_rma_iov}: a remote buffer (address or offset, length, key). */
public final class RmaIov {
    public long addr;
    public long len;
    public long key;

    public RmaIov set(long addr, long len, long key) {
        this.addr = addr;
        this.len = len;
        this.key = key;
        return this;
    }
}
