package io.jfabric.provider.verbs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cache's index, LRU bounds and invalidation. The registrar records ranges instead of pinning
 * pages (that part is ibv_reg_mr, exercised in the VM); the memory and its scopes are real arenas.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MrCacheTest {
    /** Records what the cache registers and deregisters. */
    static final class Recorder implements MrCache.Registrar<long[]> {
        final List<long[]> live = new ArrayList<>();
        int registered;
        int deregistered;

        @Override
        public long[] register(long address, long length) {
            registered++;
            long[] r = {address, length};
            live.add(r);
            return r;
        }

        @Override
        public void deregister(long[] r) {
            deregistered++;
            assertTrue(live.remove(r), "deregistered twice or never registered");
        }
    }

    @Test
    void aCoveringEntryIsReusedAndRangesArePageRounded() {
        Recorder rec = new Recorder();
        MrCache<long[]> cache = new MrCache<>(rec, 16, 1 << 30);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(3 * 4096, 4096);
            MrCache.Entry<long[]> a = cache.acquire(buf.asSlice(100, 5000));
            assertEquals(buf.address(), a.start);
            assertEquals(2 * 4096, a.end - a.start);
            cache.release(a);
            MrCache.Entry<long[]> b = cache.acquire(buf.asSlice(200, 300));
            assertSame(a, b, "a buffer inside a cached range is a hit");
            assertEquals(1, rec.registered);
            assertEquals(1, cache.hits());
            MrCache.Entry<long[]> c = cache.acquire(buf.asSlice(4096, 8192));
            assertNotSame(a, c, "a buffer beyond the cached range is a miss");
            assertEquals(2, rec.registered);
            cache.release(b);
            cache.release(c);
            assertEquals(0, cache.flush());
            assertEquals(2, rec.deregistered);
        }
    }

    @Test
    void leastRecentlyUsedIdleEntriesAreEvictedBeyondTheCount() {
        Recorder rec = new Recorder();
        MrCache<long[]> cache = new MrCache<>(rec, 2, 1 << 30);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4 * 4096, 4096);
            List<MrCache.Entry<long[]>> es = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                es.add(cache.acquire(buf.asSlice(i * 4096L, 64)));
            }
            assertEquals(3, cache.count(), "entries in use are never evicted");
            cache.release(es.get(0));
            cache.release(es.get(1));
            assertEquals(2, cache.count(), "the oldest idle entry went first");
            assertEquals(1, rec.deregistered);
            assertEquals(buf.address(), rec.live.stream().mapToLong(r -> r[0]).min().orElseThrow() - 4096);
            cache.release(es.get(2));
            assertEquals(2, cache.count());
        }
    }

    @Test
    void theSizeBoundEvictsToo() {
        Recorder rec = new Recorder();
        MrCache<long[]> cache = new MrCache<>(rec, 100, 8192);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4 * 4096, 4096);
            cache.release(cache.acquire(buf.asSlice(0, 8192)));
            cache.release(cache.acquire(buf.asSlice(8192, 4096)));
            assertTrue(cache.bytes() <= 8192, "bytes " + cache.bytes());
            assertEquals(1, rec.deregistered);
        }
    }

    @Test
    void memoryOfAClosedArenaIsNeverServedAgain() {
        Recorder rec = new Recorder();
        MrCache<long[]> cache = new MrCache<>(rec, 16, 1 << 30);
        long address;
        MrCache.Entry<long[]> first;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4096, 4096);
            address = buf.address();
            first = cache.acquire(buf);
            cache.release(first);
        }
        try (Arena again = Arena.ofConfined()) {
            // same address range, new owner: the old pinned pages must not be reused
            MemorySegment buf = MemorySegment.ofAddress(address).reinterpret(4096, again, null);
            MrCache.Entry<long[]> e = cache.acquire(buf);
            assertNotSame(first, e);
            assertEquals(1, rec.deregistered, "the stale entry was deregistered");
            cache.release(e);
        }
    }

    @Test
    void invalidationDropsOverlappingEntries() {
        Recorder rec = new Recorder();
        MrCache<long[]> cache = new MrCache<>(rec, 16, 1 << 30);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4 * 4096, 4096);
            MrCache.Entry<long[]> used = cache.acquire(buf.asSlice(0, 4096));
            cache.release(cache.acquire(buf.asSlice(8192, 4096)));
            cache.invalidate(buf.address(), 3 * 4096);
            assertEquals(1, rec.deregistered, "the idle overlapping entry goes at once");
            assertNotSame(used, cache.acquire(buf.asSlice(0, 64)), "a stale entry is never a hit");
            cache.release(used);
            assertEquals(2, rec.deregistered, "the in-use one goes when released");
        }
    }
}
