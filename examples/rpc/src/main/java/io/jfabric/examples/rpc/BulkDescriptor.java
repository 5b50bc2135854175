package io.jfabric.examples.rpc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The wire form of a {@link BulkHandle}: what Mercury's HG_Bulk_serialize writes. The remote address is
 * the segment's virtual address under FI_MR_VIRT_ADDR and 0 otherwise (offsets then count from the
 * region's start); the key is the one the registration reported (FI_MR_PROV_KEY); the owner is the raw
 * endpoint address of the process that registered it. Mutable so decoders can reuse one.
 *
 * <p>Layout, little endian: u64 address, u64 length, u64 key, u16 owner length, owner bytes.
 */
public final class BulkDescriptor {
    /** An empty descriptor, to fill with {@link BulkHandle#describe} or {@link #decode}. */
    public BulkDescriptor() {
    }

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    static final int MAX_OWNER = 256;

    private long address;
    private long length;
    private long key;
    private final byte[] owner = new byte[MAX_OWNER];
    private int ownerLength;

    BulkDescriptor set(long address, long length, long key, byte[] owner) {
        if (owner.length > MAX_OWNER) {
            throw new IllegalArgumentException("endpoint address of " + owner.length + " B exceeds " + MAX_OWNER);
        }
        this.address = address;
        this.length = length;
        this.key = key;
        System.arraycopy(owner, 0, this.owner, 0, owner.length);
        this.ownerLength = owner.length;
        return this;
    }

    public long address() {
        return address;
    }

    public long length() {
        return length;
    }

    public long key() {
        return key;
    }

    /** The owner's endpoint address (a copy). */
    public byte[] owner() {
        return Arrays.copyOf(owner, ownerLength);
    }

    public int encodedSize() {
        return 26 + ownerLength;
    }

    /** Writes at {@code offset}; returns the offset after it, or -1 if it does not fit. */
    public long encode(MemorySegment out, long offset) {
        if (out.byteSize() - offset < encodedSize()) {
            return -1;
        }
        out.set(LONG, offset, address);
        out.set(LONG, offset + 8, length);
        out.set(LONG, offset + 16, key);
        out.set(SHORT, offset + 24, (short) ownerLength);
        MemorySegment.copy(owner, 0, out, ValueLayout.JAVA_BYTE, offset + 26, ownerLength);
        return offset + encodedSize();
    }

    /** Reads from {@code offset}; returns the offset after it. Throws IndexOutOfBoundsException on a short buffer. */
    public long decode(MemorySegment in, long offset) {
        address = in.get(LONG, offset);
        length = in.get(LONG, offset + 8);
        key = in.get(LONG, offset + 16);
        int n = in.get(SHORT, offset + 24) & 0xFFFF;
        if (n > MAX_OWNER) {
            throw new IndexOutOfBoundsException("owner address of " + n + " B in a bulk descriptor");
        }
        MemorySegment.copy(in, ValueLayout.JAVA_BYTE, offset + 26, owner, 0, n);
        ownerLength = n;
        return offset + 26 + n;
    }

    @Override
    public String toString() {
        return "BulkDescriptor[addr=0x" + Long.toHexString(address) + ", len=" + length + ", key=0x"
                + Long.toHexString(key) + "]";
    }
}
