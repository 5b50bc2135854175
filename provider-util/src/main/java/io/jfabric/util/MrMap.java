package io.jfabric.util;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MrAttr;
import io.jfabric.MrMode;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * libfabric's {@code ofi_mr_map} ({@code prov/util/src/util_mr_map.c}): the domain's key → region map
 * that RMA targets check every remote access against.
 *
 * <ul>
 * <li>Keys: with FI_MR_PROV_KEY the map hands out sequential keys from 1; otherwise the application's
 * requested key is used, and a key already in use fails with ENOKEY (fi_mr(3)); a key wider than the
 * domain's mr_key_size fails with EKEYREJECTED.</li>
 * <li>Addressing: with FI_MR_VIRT_ADDR a remote address is the target's virtual address
 * ({@code segment.address()}); otherwise it is an offset that starts at the registration's
 * {@code offset} argument (libfabric's default "scalable" mode uses 0).</li>
 * <li>{@link #verify} returns 0 / -ENOKEY (unknown or closed key) / -EACCES (access not granted) /
 * -EINVAL (range outside the region), and never throws. Difference: libfabric's verify reports an
 * unknown key as EINVAL; ENOKEY says more.</li>
 * </ul>
 *
 * <p>Threading: lookups are lock-free and allocation-free. The table is an immutable open-addressing
 * array replaced on every insert/remove (copy-on-write under a lock), so the RMA data path reads one
 * volatile reference and probes; registration and close are the (rarer) control path.
 */
public final class MrMap {
    /**
     * The mr_iov_limit of the providers whose regions live in an MrMap (tcp, shm, tcp;ofi_rxm): as many
     * segments as one tcp RMA carries ranges (TCPX_IOV_LIMIT), so one range that spans every segment of a
     * region still fits the target's per-operation buffer arrays.
     */
    public static final int IOV_LIMIT = 4;

    private static final class Table {
        final long[] keys;
        final UtilMemoryRegion[] regions;
        final int size;

        Table(int slots, int size) {
            keys = new long[slots];
            regions = new UtilMemoryRegion[slots];
            this.size = size;
        }
    }

    private final int mrMode;
    private final long maxKey;
    /** Held by each open region (the domain, which may not close under them); null: nothing to hold. */
    private final UtilFabricObject owner;
    private volatile Table table = new Table(16, 0);
    private long nextProvKey = 1;

    /**
     * @param mrMode     the domain's MrMode bits (PROV_KEY and VIRT_ADDR matter here)
     * @param keySizeBytes domain_attr.mr_key_size (1..8; 0 means 8)
     */
    public MrMap(int mrMode, int keySizeBytes) {
        this(mrMode, keySizeBytes, null);
    }

    /**
     * As {@link #MrMap(int, int)}, and each region {@link UtilFabricObject#acquire() acquires} {@code owner}
     * while it is open.
     */
    public MrMap(int mrMode, int keySizeBytes, UtilFabricObject owner) {
        if (keySizeBytes < 0 || keySizeBytes > 8) {
            throw new FabricException(Errno.EINVAL, "mr_key_size " + keySizeBytes + " is not 0..8 bytes");
        }
        this.mrMode = mrMode;
        this.maxKey = keySizeBytes == 0 || keySizeBytes == 8 ? -1L : (1L << (8 * keySizeBytes)) - 1;
        this.owner = owner;
    }

    public int mrMode() {
        return mrMode;
    }

    public boolean providerKeys() {
        return (mrMode & MrMode.PROV_KEY) != 0;
    }

    public boolean virtualAddressing() {
        return (mrMode & MrMode.VIRT_ADDR) != 0;
    }

    /**
     * {@code fi_mr_reg}'s map part: registers {@code segment} and returns the region. Throws
     * FabricException ENOKEY (key in use), EKEYREJECTED (key too wide, or FI_KEY_NOTAVAIL), EINVAL
     * (bad access bits, null segment, negative offset).
     */
    public UtilMemoryRegion register(MemorySegment segment, long access, long offset, long requestedKey,
                                     Object context) {
        if (segment == null) {
            throw new FabricException(Errno.EINVAL, "fi_mr_reg of a null segment");
        }
        return insert(new MemorySegment[] {segment}, access, offset, requestedKey, context);
    }

    /**
     * {@code fi_mr_regattr}'s map part: registers the first {@code attr.iovCount} segments as one region that
     * remote accesses address as their concatenation. The caller has checked the count against its
     * mr_iov_limit ({@link #IOV_LIMIT} for the util providers). Throws as {@link #register(MemorySegment, long,
     * long, long, Object)}, and EINVAL for a bad iov ({@link MrAttr#checkIov()}).
     */
    public UtilMemoryRegion register(MrAttr attr) {
        attr.checkIov();
        MemorySegment[] own = java.util.Arrays.copyOf(attr.iov, attr.iovCount);
        return insert(own, attr.access, attr.offset, attr.requestedKey, attr.context);
    }

    private UtilMemoryRegion insert(MemorySegment[] segments, long access, long offset, long requestedKey,
                                    Object context) {
        if ((access & ~Access.ALL) != 0) {
            throw new FabricException(Errno.EINVAL, "fi_mr_reg access has unknown bits "
                    + Long.toHexString(access & ~Access.ALL) + "; use Access.* flags");
        }
        if (access == 0) {
            // No access bits: grant every access, as the util providers treat a 0 access mask.
            access = Access.ALL;
        }
        if (offset < 0) {
            throw new FabricException(Errno.EINVAL, "fi_mr_reg offset " + offset + " is negative");
        }
        synchronized (this) {
            long key;
            if (providerKeys()) {
                key = nextFreeProvKey();
            } else {
                key = requestedKey;
                if (key == -1L) {
                    throw new FabricException(Errno.EKEYREJECTED, "requested key FI_KEY_NOTAVAIL is not a key;"
                            + " pick a key, or use a domain with FI_MR_PROV_KEY");
                }
                if (maxKey != -1L && Long.compareUnsigned(key, maxKey) > 0) {
                    throw new FabricException(Errno.EKEYREJECTED, "requested key 0x" + Long.toHexString(key)
                            + " does not fit the domain's mr_key_size (max 0x" + Long.toHexString(maxKey) + ")");
                }
                if (find(key) != null) {
                    throw new FabricException(Errno.ENOKEY, "requested key 0x" + Long.toHexString(key)
                            + " is already in use by another region; close it or pick another key");
                }
            }
            UtilMemoryRegion mr = new UtilMemoryRegion(this, segments, access, offset, key, context);
            put(key, mr);
            return mr;
        }
    }

    /**
     * Registers with a key the provider's hardware assigned (a verbs rkey), whatever the mr_mode:
     * the map then only checks it is unique (ENOKEY otherwise) so remote accesses can be verified.
     */
    public UtilMemoryRegion registerAssigned(MemorySegment segment, long access, long offset, long assignedKey,
                                             Object context) {
        if (segment == null) {
            throw new FabricException(Errno.EINVAL, "fi_mr_reg of a null segment");
        }
        if ((access & ~Access.ALL) != 0 || offset < 0) {
            throw new FabricException(Errno.EINVAL, "fi_mr_reg: bad access bits or negative offset");
        }
        synchronized (this) {
            if (find(assignedKey) != null) {
                throw new FabricException(Errno.ENOKEY, "assigned key 0x" + Long.toHexString(assignedKey)
                        + " is already in the map; the previous region with it was not closed");
            }
            UtilMemoryRegion mr = new UtilMemoryRegion(this, new MemorySegment[] {segment},
                    access == 0 ? Access.ALL : access, offset, assignedKey, context);
            put(assignedKey, mr);
            return mr;
        }
    }

    private long nextFreeProvKey() {
        for (;;) {
            long k = nextProvKey++;
            if (nextProvKey == -1L || (maxKey != -1L && Long.compareUnsigned(nextProvKey, maxKey) > 0)) {
                nextProvKey = 1;
            }
            if (k != -1L && find(k) == null) {
                return k;
            }
        }
    }

    /** The open region with {@code key}, or null. Lock-free, allocation-free. */
    public UtilMemoryRegion find(long key) {
        Table t = table;
        int mask = t.keys.length - 1;
        for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
            UtilMemoryRegion r = t.regions[i];
            if (r == null) {
                return null;
            }
            if (t.keys[i] == key) {
                return r;
            }
        }
    }

    /**
     * {@code ofi_mr_map_verify}: may a peer access {@code len} bytes at remote address {@code addr}
     * through {@code key} with {@code access} (Access.REMOTE_READ / REMOTE_WRITE ...)? Returns 0, -ENOKEY,
     * -EACCES or -EINVAL. Use {@link UtilMemoryRegion#resolve} to get the segment offset too.
     */
    public int verify(long key, long addr, long len, long access) {
        UtilMemoryRegion mr = find(key);
        if (mr == null) {
            return -Errno.ENOKEY;
        }
        long r = mr.resolve(addr, len, access);
        return r < 0 ? (int) r : 0;
    }

    /** Number of registered regions. */
    public int size() {
        return table.size;
    }

    /** Keys in use (control path, for diagnostics). */
    public List<Long> keys() {
        Table t = table;
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < t.keys.length; i++) {
            if (t.regions[i] != null) {
                out.add(t.keys[i]);
            }
        }
        return out;
    }

    synchronized void remove(UtilMemoryRegion mr) {
        Table old = table;
        Table t = new Table(old.keys.length, old.size - 1);
        for (int i = 0; i < old.keys.length; i++) {
            UtilMemoryRegion r = old.regions[i];
            if (r != null && r != mr) {
                insertInto(t, old.keys[i], r);
            }
        }
        table = t;
        if (owner != null) {
            owner.release();
        }
    }

    private void put(long key, UtilMemoryRegion mr) {
        if (owner != null) {
            owner.acquire();
        }
        Table old = table;
        int slots = old.keys.length;
        // Keep the load under one half so probes stay short.
        while ((old.size + 1) * 2 > slots) {
            slots <<= 1;
        }
        Table t = new Table(slots, old.size + 1);
        for (int i = 0; i < old.keys.length; i++) {
            if (old.regions[i] != null) {
                insertInto(t, old.keys[i], old.regions[i]);
            }
        }
        insertInto(t, key, mr);
        table = t;
    }

    private static void insertInto(Table t, long key, UtilMemoryRegion mr) {
        int mask = t.keys.length - 1;
        int i = hash(key) & mask;
        while (t.regions[i] != null) {
            i = (i + 1) & mask;
        }
        t.keys[i] = key;
        t.regions[i] = mr;
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
