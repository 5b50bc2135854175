package io.jfabric;

/** Mirrors {@code struct fi_rma_ioc}: a remote array of atomic elements (address or offset, count, key). */
public final class AtomicIoc {
    /** {@code addr}: the offset into the target region, or its virtual address with FI_MR_VIRT_ADDR. */
    public long addr;
    /** {@code count}: elements of the operation's datatype. */
    public long count;
    /** {@code key}: the target region's key. */
    public long key;

    /** A remote array at address 0, count 0, key 0. */
    public AtomicIoc() {
    }

    /**
     * Sets all three fields.
     *
     * @param addr the offset, or the virtual address with FI_MR_VIRT_ADDR
     * @param count elements
     * @param key the target region's key
     * @return this
     */
    public AtomicIoc set(long addr, long count, long key) {
        this.addr = addr;
        this.count = count;
        this.key = key;
        return this;
    }
}
