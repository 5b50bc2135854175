package io.jfabric.util;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.locks.StampedLock;

/**
 * libfabric's util AV ({@code prov/util/src/util_av.c}), following fi_av(3), for FI_AV_TABLE and
 * FI_AV_MAP (UNSPEC becomes TABLE). Both hand out small indexes as fi_addr, as util_av does: 0, 1, 2
 * ... in insertion order, across calls.
 *
 * <ul>
 * <li>insert: each address is checked by the provider's {@link AddressCodec} (a bad one gets
 * FI_ADDR_NOTAVAIL, its errno in an FI_SYNC_ERR {@code int[]} context, and a WARN log with the reason).
 * Inserting an address already present returns its fi_addr and counts a reference (util_av's
 * behaviour; fi_av(3) leaves duplicates undefined).</li>
 * <li>remove drops a reference; at zero the slot is invalid (lookup ENOENT, {@link #peer} null) and
 * its index may be reused by a later insert, lowest free index first. An index is never reused while
 * any insert still references it.</li>
 * <li>FI_EVENT AVs ({@code attr.flags & AvAttr.EVENT}) need a bound EQ ({@code ENOEQ} otherwise):
 * insert returns 0 and reports one error entry per failed address ({@code data} = its position in
 * the call, {@code errData} = the reason as text) and then FI_AV_COMPLETE with {@code data} = the
 * number inserted and the insert's context. The work itself is done synchronously, as util_av does.</li>
 * <li>Per-peer state: a {@link PeerListener} creates the provider's object for a new fi_addr and
 * disposes of it on removal; {@link #peer(long)} is an array index (lock-free, allocation-free) for
 * the data path.</li>
 * <li>Reverse lookup ({@link #reverseLookup}), for FI_SOURCE: address bytes → fi_addr through an
 * open-addressing hash; lock-free for readers (optimistic StampedLock), allocation-free.</li>
 * </ul>
 * Control-path methods (insert, remove, lookup, bind, close) are thread-safe.
 */
public class UtilAddressVector<P> extends UtilFabricObject implements AddressVector {
    /** Creates and disposes of the provider's per-peer object. Called under the AV's lock. */
    public interface PeerListener<P> {
        /** A new fi_addr; returns the provider's object for it (may be null and set later). */
        P inserted(long fiAddr, byte[] addr);

        /** The fi_addr's last reference went away. */
        void removed(long fiAddr, byte[] addr, P peer);
    }

    private static final class Entry<P> {
        final byte[] addr;
        final int hash;
        volatile P peer;
        int refs;

        Entry(byte[] addr, int hash) {
            this.addr = addr;
            this.hash = hash;
        }
    }

    private static final VarHandle ENTRIES = MethodHandles.arrayElementVarHandle(Entry[].class);
    private static final int TOMBSTONE = -1;
    private static final long ALLOWED_INSERT_FLAGS = OpFlags.MORE | Fabrics.SYNC_ERR;

    private final AvAttr attr;
    private final AvType type;
    private final AddressCodec codec;
    private final PeerListener<P> listener;
    private final System.Logger log;
    private final StampedLock lock = new StampedLock();
    private volatile Entry<P>[] entries;
    private final BitSet used = new BitSet();
    private int lowestFree;
    private int count;
    /** index + 1 per slot; 0 empty, TOMBSTONE removed. */
    private int[] hashTable;
    private int hashUsed;
    private volatile EventQueue eq;

    /**
     * @param attr     the application's attributes
     * @param codec    the provider's address format
     * @param listener per-peer objects, or null
     * @param provider provider name for the logger ("tcp")
     */
    @SuppressWarnings("unchecked")
    public UtilAddressVector(AvAttr attr, AddressCodec codec, PeerListener<P> listener, String provider) {
        super("address vector");
        if (attr == null || codec == null) {
            throw new FabricException(Errno.EINVAL, "AV needs attributes and an address codec");
        }
        if (attr.name != null) {
            throw new FabricException(Errno.ENOSYS, "named (shared) AVs are not supported; leave AvAttr.name null");
        }
        if ((attr.flags & ~(AvAttr.EVENT | AvAttr.SYMMETRIC | OpFlags.READ)) != 0) {
            throw new FabricException(Errno.EINVAL, "AV flags 0x" + Long.toHexString(attr.flags)
                    + " include unsupported bits; only FI_EVENT, FI_SYMMETRIC and FI_READ are allowed");
        }
        if (attr.count < 0 || attr.count > (1 << 26)) {
            throw new FabricException(Errno.EINVAL, "AV count " + attr.count + " out of range 0.." + (1 << 26));
        }
        this.attr = attr;
        this.type = attr.type == AvType.MAP ? AvType.MAP : AvType.TABLE;
        this.codec = codec;
        this.listener = listener;
        this.log = FabricLog.logger(provider == null ? "util" : provider);
        int initial = (int) Math.max(16, Math.min(attr.count, 1 << 16));
        this.entries = (Entry<P>[]) new Entry<?>[initial];
        this.hashTable = new int[Integer.highestOneBit(initial * 2 - 1) << 1];
    }

    @Override
    public AvAttr attr() {
        return attr;
    }

    /** TABLE or MAP (UNSPEC resolved to TABLE). */
    public AvType type() {
        return type;
    }

    public AddressCodec codec() {
        return codec;
    }

    /** The EQ bound for FI_EVENT inserts, or null. */
    public EventQueue eventQueue() {
        return eq;
    }

    @Override
    public void bind(EventQueue eventQueue) {
        checkOpen("bind an EQ to");
        if (eventQueue == null) {
            throw new FabricException(Errno.EINVAL, "fi_av_bind of a null EQ");
        }
        synchronized (this) {
            if (eq != null) {
                throw new FabricException(Errno.EINVAL, "this AV is already bound to an EQ");
            }
            if (eventQueue instanceof UtilFabricObject u) {
                u.acquire();
            }
            eq = eventQueue;
        }
    }

    // ---- insert ----------------------------------------------------------------------------------

    @Override
    public int insert(byte[][] addrs, long[] fiAddrOut, long flags, Object context) {
        checkOpen("insert into");
        if (addrs == null) {
            throw new FabricException(Errno.EINVAL, "fi_av_insert of a null address array");
        }
        if ((flags & ~ALLOWED_INSERT_FLAGS) != 0) {
            throw new FabricException(Errno.EBADFLAGS, "fi_av_insert flags " + OpFlags.toString(flags & ~ALLOWED_INSERT_FLAGS)
                    + " are not supported; use FI_MORE and FI_SYNC_ERR");
        }
        if (fiAddrOut == null && type == AvType.MAP) {
            throw new FabricException(Errno.EINVAL, "FI_AV_MAP inserts need an fi_addr array to return the addresses in");
        }
        if (fiAddrOut != null && fiAddrOut.length < addrs.length) {
            throw new FabricException(Errno.EINVAL, "fi_addr array has " + fiAddrOut.length + " slots for "
                    + addrs.length + " addresses");
        }
        boolean async = (attr.flags & AvAttr.EVENT) != 0;
        EventQueue q = eq;
        if (async && q == null) {
            throw new FabricException(Errno.ENOEQ, "this AV was opened with FI_EVENT; bind it to an EQ before inserting");
        }
        int[] syncErr = null;
        if ((flags & Fabrics.SYNC_ERR) != 0) {
            if (async) {
                throw new FabricException(Errno.EINVAL, "FI_SYNC_ERR is for synchronous inserts; this AV is FI_EVENT");
            }
            if (!(context instanceof int[] errs) || errs.length < addrs.length) {
                throw new FabricException(Errno.EINVAL, "FI_SYNC_ERR needs an int[" + addrs.length
                        + "] as context to receive each address's errno");
            }
            syncErr = errs;
        }
        int ok = 0;
        int[] errs = new int[addrs.length];
        String[] reasons = async ? new String[addrs.length] : null;
        long stamp = lock.writeLock();
        try {
            for (int i = 0; i < addrs.length; i++) {
                byte[] a = addrs[i];
                String why = a == null ? "address is null" : codec.validate(a);
                long fiAddr = Fabrics.ADDR_NOTAVAIL;
                if (why == null) {
                    fiAddr = insertLocked(a);
                    ok++;
                } else {
                    errs[i] = Errno.EINVAL;
                    if (reasons != null) {
                        reasons[i] = why;
                    }
                    log.log(System.Logger.Level.WARNING, "fi_av_insert: refused address #" + i + " "
                            + (a == null ? "null" : codec.straddr(a)) + ": " + why);
                }
                if (fiAddrOut != null) {
                    fiAddrOut[i] = fiAddr;
                }
            }
        } finally {
            lock.unlockWrite(stamp);
        }
        if (syncErr != null) {
            System.arraycopy(errs, 0, syncErr, 0, addrs.length);
        }
        if (async) {
            for (int i = 0; i < addrs.length; i++) {
                if (errs[i] != 0) {
                    byte[] why = reasons[i].getBytes(StandardCharsets.UTF_8);
                    if (q instanceof UtilEventQueue u) {
                        u.postError(this, context, i, errs[i], 0, why); // never throws; a full EQ reports EOVERRUN
                    } else {
                        q.writeError(new EqErrEntry().set(this, context, i, errs[i], 0, why), 0);
                    }
                }
            }
            if (q instanceof UtilEventQueue u) {
                u.postAvComplete(this, context, ok);
            } else {
                q.write(new EqEntry().set(EqEvent.AV_COMPLETE, this, context, ok, null, null), 0);
            }
            return 0;
        }
        return ok;
    }

    /** Inserts one address; throws FabricException(EINVAL) naming the address and the codec's reason. */
    @Override
    public long insert(byte[] addr) {
        checkOpen("insert into");
        String why = addr == null ? "address is null" : codec.validate(addr);
        if (why != null) {
            throw new FabricException(Errno.EINVAL, "address vector refused address "
                    + (addr == null ? "null" : codec.straddr(addr)) + ": " + why);
        }
        long[] out = new long[1];
        int[] errs = new int[1];
        if (insert(new byte[][] {addr}, out, (attr.flags & AvAttr.EVENT) != 0 ? 0 : Fabrics.SYNC_ERR,
                (attr.flags & AvAttr.EVENT) != 0 ? null : errs) != 1 && (attr.flags & AvAttr.EVENT) == 0) {
            throw new FabricException(errs[0] == 0 ? Errno.EINVAL : errs[0], "address vector refused address "
                    + codec.straddr(addr));
        }
        return out[0];
    }

    @Override
    public int insertSvc(String node, String service, long[] fiAddrOut, long flags, Object context) {
        checkOpen("insert into");
        byte[] a = codec.resolve(node, service);
        return insert(new byte[][] {a}, fiAddrOut, flags, context);
    }

    private long insertLocked(byte[] addr) {
        int h = hashBytes(addr, 0, addr.length);
        int existing = findIndex(hashTable, addr, 0, addr.length, h);
        if (existing >= 0) {
            entryAt(existing).refs++;
            log.log(System.Logger.Level.DEBUG, "fi_av_insert: " + codec.straddr(addr)
                    + " already at fi_addr " + existing + "; counted another reference");
            return existing;
        }
        int idx = used.nextClearBit(lowestFree);
        used.set(idx);
        lowestFree = idx + 1;
        Entry<P>[] arr = entries;
        if (idx >= arr.length) {
            arr = Arrays.copyOf(arr, Math.max(arr.length * 2, idx + 1));
            entries = arr;
        }
        Entry<P> e = new Entry<>(addr.clone(), h);
        e.refs = 1;
        ENTRIES.setRelease(arr, idx, e);
        count++;
        hashInsert(idx, h);
        if (listener != null) {
            e.peer = listener.inserted(idx, e.addr);
        }
        return idx;
    }

    // ---- remove / lookup -------------------------------------------------------------------------

    /** {@code fi_av_remove}: all or nothing; -EINVAL (and nothing removed) if any fi_addr is not valid. */
    @Override
    public int remove(long[] fiAddrs, long flags) {
        checkOpen("remove from");
        if (fiAddrs == null) {
            return -Errno.EINVAL;
        }
        long stamp = lock.writeLock();
        try {
            for (long a : fiAddrs) {
                if (entryFor(a) == null) {
                    log.log(System.Logger.Level.WARNING, "fi_av_remove: fi_addr " + a + " is not in the AV");
                    return -Errno.EINVAL;
                }
            }
            for (long a : fiAddrs) {
                int idx = (int) a;
                Entry<P> e = entryAt(idx);
                if (e == null) {
                    continue; // listed twice: the first occurrence already removed the last reference
                }
                if (--e.refs > 0) {
                    continue;
                }
                hashRemove(idx, e);
                ENTRIES.setRelease(entries, idx, (Entry<P>) null);
                used.clear(idx);
                lowestFree = Math.min(lowestFree, idx);
                count--;
                if (listener != null) {
                    listener.removed(idx, e.addr, e.peer);
                }
            }
            return 0;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    @Override
    public byte[] lookup(long fiAddr) {
        Entry<P> e = entryFor(fiAddr);
        if (e == null) {
            throw new FabricException(Errno.ENOENT, "fi_addr " + fiAddr + " is not in the address vector"
                    + " (never inserted, or removed)");
        }
        return e.addr.clone();
    }

    @Override
    public String straddr(byte[] addr) {
        return codec.straddr(addr);
    }

    /** Addresses currently valid. */
    public int count() {
        long stamp = lock.readLock();
        try {
            return count;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    // ---- data path -------------------------------------------------------------------------------

    /** True when {@code fiAddr} names a valid entry. Lock-free. */
    public boolean isValid(long fiAddr) {
        return entryFor(fiAddr) != null;
    }

    /** The provider's object for {@code fiAddr}, or null when invalid (or not set). Lock-free, allocation-free. */
    public P peer(long fiAddr) {
        Entry<P> e = entryFor(fiAddr);
        return e == null ? null : e.peer;
    }

    /** Sets the provider's object for a valid fi_addr (e.g. a connection made lazily); false if invalid. */
    public boolean setPeer(long fiAddr, P peer) {
        Entry<P> e = entryFor(fiAddr);
        if (e == null) {
            return false;
        }
        e.peer = peer;
        return true;
    }

    /** The stored address bytes of {@code fiAddr} without copying (do not modify), or null. */
    public byte[] address(long fiAddr) {
        Entry<P> e = entryFor(fiAddr);
        return e == null ? null : e.addr;
    }

    /** The fi_addr of an address (FI_SOURCE), or FI_ADDR_NOTAVAIL. Lock-free, allocation-free. */
    public long reverseLookup(byte[] addr) {
        return addr == null ? Fabrics.ADDR_NOTAVAIL : reverseLookup(addr, 0, addr.length);
    }

    /** As {@link #reverseLookup(byte[])} for {@code len} bytes of {@code buf} at {@code off}. */
    public long reverseLookup(byte[] buf, int off, int len) {
        int h = hashBytes(buf, off, len);
        long stamp = lock.tryOptimisticRead();
        if (stamp != 0) {
            int idx = safeFind(buf, off, len, h);
            if (lock.validate(stamp)) {
                return idx < 0 ? Fabrics.ADDR_NOTAVAIL : idx;
            }
        }
        stamp = lock.readLock();
        try {
            int idx = findIndex(hashTable, buf, off, len, h);
            return idx < 0 ? Fabrics.ADDR_NOTAVAIL : idx;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** An optimistic probe: tolerates a concurrent writer (bounded loop, bounds checks); validated after. */
    private int safeFind(byte[] buf, int off, int len, int h) {
        try {
            return findIndex(hashTable, buf, off, len, h);
        } catch (RuntimeException raced) {
            return -1;
        }
    }

    private Entry<P> entryFor(long fiAddr) {
        if (fiAddr < 0 || fiAddr > Integer.MAX_VALUE) {
            return null;
        }
        return entryAt((int) fiAddr);
    }

    @SuppressWarnings("unchecked")
    private Entry<P> entryAt(int idx) {
        Entry<P>[] arr = entries;
        return idx < arr.length ? (Entry<P>) ENTRIES.getAcquire(arr, idx) : null;
    }

    // ---- reverse hash (guarded by the write lock for changes) -------------------------------------

    private int findIndex(int[] table, byte[] buf, int off, int len, int h) {
        int mask = table.length - 1;
        for (int n = 0, i = h & mask; n < table.length; n++, i = (i + 1) & mask) {
            int v = table[i];
            if (v == 0) {
                return -1;
            }
            if (v > 0) {
                Entry<P> e = entryAt(v - 1);
                if (e != null && e.hash == h && Arrays.equals(e.addr, 0, e.addr.length, buf, off, off + len)) {
                    return v - 1;
                }
            }
        }
        return -1;
    }

    private void hashInsert(int idx, int h) {
        if ((hashUsed + 1) * 2 > hashTable.length) {
            // Tombstones count as used; rehashing drops them, so grow only when live entries need it.
            rehash(count * 4 > hashTable.length ? hashTable.length * 2 : hashTable.length);
        }
        int mask = hashTable.length - 1;
        int i = h & mask;
        while (hashTable[i] > 0) {
            i = (i + 1) & mask;
        }
        if (hashTable[i] == 0) {
            hashUsed++;
        }
        hashTable[i] = idx + 1;
    }

    private void hashRemove(int idx, Entry<P> e) {
        int mask = hashTable.length - 1;
        for (int n = 0, i = e.hash & mask; n < hashTable.length; n++, i = (i + 1) & mask) {
            if (hashTable[i] == idx + 1) {
                hashTable[i] = TOMBSTONE;
                return;
            }
            if (hashTable[i] == 0) {
                return;
            }
        }
    }

    private void rehash(int size) {
        int[] t = new int[size];
        int usedSlots = 0;
        int mask = size - 1;
        Entry<P>[] arr = entries;
        for (int v : hashTable) {
            if (v > 0) {
                Entry<P> e = arr[v - 1];
                int i = e.hash & mask;
                while (t[i] != 0) {
                    i = (i + 1) & mask;
                }
                t[i] = v;
                usedSlots++;
            }
        }
        hashTable = t;
        hashUsed = usedSlots;
    }

    private static int hashBytes(byte[] b, int off, int len) {
        int h = 0x811c9dc5;
        for (int i = off; i < off + len; i++) {
            h = (h ^ (b[i] & 0xff)) * 0x01000193;
        }
        return h ^ (h >>> 16);
    }

    // ---- close -----------------------------------------------------------------------------------

    @Override
    protected void doClose() {
        long stamp = lock.writeLock();
        try {
            Entry<P>[] arr = entries;
            for (int i = 0; i < arr.length; i++) {
                Entry<P> e = arr[i];
                if (e != null && listener != null) {
                    listener.removed(i, e.addr, e.peer);
                }
            }
        } finally {
            lock.unlockWrite(stamp);
        }
        EventQueue q = eq;
        if (q instanceof UtilFabricObject u) {
            u.release();
        }
    }

    @Override
    public String toString() {
        return "UtilAddressVector[" + type.cName() + ", count=" + count() + (eq != null ? ", bound to EQ" : "") + "]";
    }
}
