package io.jfabric.provider.verbs;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * libfabric's MR registration cache ({@code ofi_mr_cache}): keeps page-rounded registrations after
 * their users closed them, so registering the same buffers again costs a lookup instead of an
 * {@code ibv_reg_mr} (pinning pages is the expensive part). Entries are indexed by start address;
 * a lookup hits an entry that covers the whole buffer. Unused entries are evicted least recently used
 * first, beyond {@code maxCount} entries or {@code maxSize} bytes (FI_MR_CACHE_MAX_COUNT /
 * FI_MR_CACHE_MAX_SIZE).
 *
 * <p>Invalidation: libfabric watches munmap/free with memory monitors. Java frees native memory by
 * closing its arena, so an entry remembers the {@link MemorySegment.Scope} it was registered for: it
 * only serves buffers of that same scope, and once the scope is no longer alive the entry is stale
 * and is deregistered at the next lookup or release (never reused for memory mapped again at the same
 * address). Not thread-safe on its own: the domain serializes calls.
 *
 * @param <R> the registration handle (an {@code ibv_mr} for verbs)
 */
final class MrCache<R> {
    /** Registers and deregisters page-rounded ranges. */
    interface Registrar<R> {
        R register(long address, long length);

        void deregister(R registration);
    }

    /** One cached registration. */
    static final class Entry<R> {
        final long start;
        final long end;
        final MemorySegment.Scope scope;
        final R registration;
        int users;
        boolean stale;

        Entry(long start, long end, MemorySegment.Scope scope, R registration) {
            this.start = start;
            this.end = end;
            this.scope = scope;
            this.registration = registration;
        }

        boolean covers(long a, long len, MemorySegment.Scope s) {
            return !stale && start <= a && a + len <= end && scope.equals(s) && scope.isAlive();
        }
    }

    private static final long PAGE = 4096;

    private final Registrar<R> registrar;
    private final int maxCount;
    private final long maxSize;
    private final TreeMap<Long, List<Entry<R>>> byStart = new TreeMap<>();
    /** Unused entries, least recently used first. */
    private final LinkedHashMap<Entry<R>, Boolean> idle = new LinkedHashMap<>(16, 0.75f, true);
    private int count;
    private long bytes;
    private long hits;
    private long misses;

    MrCache(Registrar<R> registrar, int maxCount, long maxSize) {
        this.registrar = registrar;
        this.maxCount = maxCount;
        this.maxSize = maxSize;
    }

    /** A registration covering {@code buf}, from the cache or new; give it back with {@link #release}. */
    Entry<R> acquire(MemorySegment buf) {
        long a = buf.address();
        long len = buf.byteSize();
        MemorySegment.Scope scope = buf.scope();
        // entries starting at or below the buffer; the nearest ones are the likeliest to cover it
        for (Map.Entry<Long, List<Entry<R>>> e = byStart.floorEntry(a); e != null; e = byStart.lowerEntry(e.getKey())) {
            for (Entry<R> c : e.getValue()) {
                if (c.covers(a, len, scope)) {
                    hits++;
                    if (c.users++ == 0) {
                        idle.remove(c);
                    }
                    return c;
                }
            }
            if (a - e.getKey() > maxSize) {
                break; // nothing that far below can cover it within the size bound
            }
        }
        misses++;
        sweepStale();
        long start = a & -PAGE;
        long end = (a + len + PAGE - 1) & -PAGE;
        R r = registrar.register(start, end - start);
        Entry<R> c = new Entry<>(start, end, scope, r);
        c.users = 1;
        byStart.computeIfAbsent(start, k -> new ArrayList<>(1)).add(c);
        count++;
        bytes += end - start;
        evict();
        return c;
    }

    /** One user is done with {@code c}; it stays cached while the bounds allow. */
    void release(Entry<R> c) {
        if (--c.users > 0) {
            return;
        }
        if (c.stale || !c.scope.isAlive()) {
            drop(c);
            return;
        }
        idle.put(c, Boolean.TRUE);
        evict();
    }

    /** Drops every entry overlapping {@code [address, address + length)} (the memory changed). */
    void invalidate(long address, long length) {
        List<Entry<R>> hit = new ArrayList<>();
        for (List<Entry<R>> l : byStart.headMap(address + length, false).values()) {
            for (Entry<R> c : l) {
                if (c.end > address) {
                    hit.add(c);
                }
            }
        }
        for (Entry<R> c : hit) {
            c.stale = true;
            if (c.users == 0) {
                drop(c);
            }
        }
    }

    private void sweepStale() {
        List<Entry<R>> dead = new ArrayList<>();
        for (Entry<R> c : idle.keySet()) {
            if (!c.scope.isAlive()) {
                dead.add(c);
            }
        }
        dead.forEach(this::drop);
    }

    private void evict() {
        Iterator<Entry<R>> it = idle.keySet().iterator();
        while ((count > maxCount || bytes > maxSize) && it.hasNext()) {
            Entry<R> c = it.next();
            it.remove();
            unlink(c);
        }
    }

    private void drop(Entry<R> c) {
        idle.remove(c);
        unlink(c);
    }

    private void unlink(Entry<R> c) {
        List<Entry<R>> l = byStart.get(c.start);
        if (l != null && l.remove(c)) {
            if (l.isEmpty()) {
                byStart.remove(c.start);
            }
            count--;
            bytes -= c.end - c.start;
            registrar.deregister(c.registration);
        }
    }

    /** Deregisters everything unused; returns how many entries are still in use. */
    int flush() {
        new ArrayList<>(idle.keySet()).forEach(this::drop);
        return count;
    }

    int count() {
        return count;
    }

    long bytes() {
        return bytes;
    }

    long hits() {
        return hits;
    }

    long misses() {
        return misses;
    }
}
