package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fi_mr_attr} for {@link Domain#registerMemory(MrAttr, long)} ({@code fi_mr_regattr}).
 * A region of several segments is addressed by peers as their concatenation, in iov order: remote offset (or,
 * with FI_MR_VIRT_ADDR, address) {@code base + n} is byte {@code n} of that concatenation. Only system memory
 * is supported ({@code iface} FI_HMEM_SYSTEM); there is no {@code device}, {@code auth_key} or
 * {@code hmem_data}.
 */
public final class MrAttr {
    /** {@code FI_HMEM_SYSTEM}: ordinary host memory, the only {@link #iface} jfabric registers. */
    public static final int IFACE_SYSTEM = 0;

    /** {@code mr_iov}: the segments; only the first {@link #iovCount} are registered. */
    public MemorySegment[] iov;
    /** {@code iov_count}: how many of {@link #iov} make up the region (1 to the domain's mr_iov_limit). */
    public int iovCount;
    /** {@code access}: Access bits (SEND, RECV, READ, WRITE, REMOTE_READ, REMOTE_WRITE); 0 grants all. */
    public long access;
    /** {@code offset}: the remote offset (bytes) of the region's first byte when the mr_mode has no FI_MR_VIRT_ADDR. */
    public long offset;
    /** {@code requested_key}: the key peers use, unless the mr_mode has FI_MR_PROV_KEY. */
    public long requestedKey;
    /** {@code context}: returned by {@link MemoryRegion#context()}. */
    public Object context;
    /** {@code iface}: {@link #IFACE_SYSTEM} (any other value is refused with ENOSYS). */
    public int iface = IFACE_SYSTEM;

    /** Attributes with no memory yet: set {@link #iov} and {@link #iovCount}. */
    public MrAttr() {
    }

    /**
     * Attributes for all of {@code iov}, offset 0, no context.
     *
     * @param access Access bits
     * @param requestedKey the key peers use, unless FI_MR_PROV_KEY
     * @param iov the segments, in the order peers address them
     */
    public MrAttr(long access, long requestedKey, MemorySegment... iov) {
        this.iov = iov;
        this.iovCount = iov == null ? 0 : iov.length;
        this.access = access;
        this.requestedKey = requestedKey;
    }

    /**
     * The registered bytes: the sum of the first {@link #iovCount} segments' sizes.
     *
     * @return the length in bytes
     * @throws FabricException EINVAL when {@link #iov} and {@link #iovCount} do not describe the memory
     *     ({@link #checkIov()})
     */
    public long length() {
        checkIov();
        long total = 0;
        for (int i = 0; i < iovCount; i++) {
            total += iov[i].byteSize();
        }
        return total;
    }

    /**
     * Checks what every provider checks first: at least one segment, {@code iovCount} within {@code iov}, no
     * null segment, system memory.
     *
     * @throws FabricException EINVAL for a missing, short or null-holding iov, ENOSYS for an iface other than
     *     FI_HMEM_SYSTEM
     */
    public void checkIov() {
        if (iov == null || iovCount < 1 || iovCount > iov.length) {
            throw new FabricException(Errno.EINVAL, "fi_mr_regattr needs 1 to iov.length segments, got iov_count "
                    + iovCount + " of " + (iov == null ? "no iov" : iov.length + " segment(s)"));
        }
        for (int i = 0; i < iovCount; i++) {
            if (iov[i] == null) {
                throw new FabricException(Errno.EINVAL, "fi_mr_regattr segment " + i + " is null");
            }
        }
        if (iface != IFACE_SYSTEM) {
            throw new FabricException(Errno.ENOSYS, "fi_mr_regattr iface " + iface
                    + " is not FI_HMEM_SYSTEM; jfabric has no FI_HMEM support");
        }
    }
}
