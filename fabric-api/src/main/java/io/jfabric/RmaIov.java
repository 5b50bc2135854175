package io.jfabric;

/** Mirrors {@code struct fi_rma_iov}: a remote buffer (address or offset, length, key). */
public final class RmaIov {
    /** {@code addr}: the offset into the target region, or its virtual address with FI_MR_VIRT_ADDR. */
    public long addr;
    /** {@code len}: bytes. */
    public long len;
    /** {@code key}: the target region's key. */
    public long key;

    /** A remote buffer at address 0, length 0, key 0. */
    public RmaIov() {
    }

    /**
     * Sets all three fields.
     *
     * @param addr the offset, or the virtual address with FI_MR_VIRT_ADDR
     * @param len bytes
     * @param key the target region's key
     * @return this
     */
    public RmaIov set(long addr, long len, long key) {
        this.addr = addr;
        this.len = len;
        this.key = key;
        return this;
    }
}
