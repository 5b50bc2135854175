package io.jfabric.netty;

import io.jfabric.Access;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.netty.buffer.ByteBuf;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One loop domain's registrations of Netty's pooled memory, so that a direct write on a provider that wants a local
 * descriptor (FI_MR_LOCAL: verbs) is sent in place instead of copied into a slot.
 *
 * <p>What is registered is the whole block a pooled buffer lives in: its internal NIO buffer is a view of the
 * arena's chunk, whose capacity and base (the buffer's address less the view's position) name the chunk without
 * reaching into Netty's internals. Each chunk is registered once, the first time a write comes from it, and stays
 * until the loop's last channel on this domain closes, or until the table is full and a slot must be reused; an entry
 * a send is still reading is never dropped (its {@code inflight} count), so when every entry is busy the write is
 * copied instead.
 *
 * <p>Unpooled buffers are never registered, nor are pooled ones whose view shows only themselves (Netty 4.2's
 * default adaptive allocator): each would cost a registration per write. Zero-copy takes
 * {@code PooledByteBufAllocator} (ChannelOption.ALLOCATOR).
 *
 * <p>Nothing tells the cache when the pool frees a chunk (an arena destroys a chunk that empties), and a chunk mapped
 * again at the same address would hit the old entry. Where a registration pins pages (verbs) the NIC would then read
 * the old ones, so on such providers the cache is off unless {@value #CACHE_CHUNKS} is set by an application that
 * keeps its pool's chunks alive; where a registration only records the range (the pure-Java providers under
 * {@link LoopDomain#REGISTER_SENDS}) a stale entry is harmless and the cache is on. See docs/differences.md.
 *
 * <p>Loop thread only: no locks.
 */
final class RegistrationCache {
    /** Chunks one domain keeps registered at most; Netty's default pools have a few per arena. */
    static final int ENTRIES = 64;

    /** Chunks registered by every cache of the process so far (a miss costs one): the tests' measure of reuse. */
    static final AtomicLong CHUNKS_REGISTERED = new AtomicLong();

    /** One registered chunk: where it starts, how long it is, and how many sends read it now. */
    private static final class Entry {
        long base;
        long capacity;
        MemoryRegion region;
        int inflight;
        long lastUse;
    }

    /** A system property that turns the chunk cache on for providers whose registrations pin memory (verbs). */
    static final String CACHE_CHUNKS = "jfabric.netty.cacheChunks";

    private final LoopDomain loop;
    private final boolean enabled;
    private final Entry[] entries = new Entry[ENTRIES];
    private long clock;
    private int used;

    RegistrationCache(LoopDomain loop, boolean pinsMemory) {
        this.loop = loop;
        this.enabled = !pinsMemory || Boolean.getBoolean(CACHE_CHUNKS);
        for (int i = 0; i < ENTRIES; i++) {
            entries[i] = new Entry();
        }
    }

    /**
     * The entry whose registration covers {@code length} bytes of {@code buf} from its reader index, with one more
     * send reading it; -1 when the buffer is not pooled direct memory or no entry can take its chunk (copy it then).
     */
    int acquire(ByteBuf buf, int length) {
        if (!enabled || !buf.hasMemoryAddress() || !buf.isDirect() || !buf.alloc().isDirectBufferPooled()) {
            return -1;
        }
        int from = buf.readerIndex();
        ByteBuffer view = buf.internalNioBuffer(from, length);
        long start = buf.memoryAddress() + from;
        long chunk = start - view.position();
        long size = view.capacity();
        if (size <= buf.capacity() || start < chunk || start + length > chunk + size) {
            // a view no larger than the buffer shows no chunk (Netty 4.2's adaptive allocator, a huge allocation):
            // registering it would cost a registration per buffer, so the write is copied
            return -1;
        }
        int free = -1;
        int oldest = -1;
        for (int i = 0; i < used; i++) {
            Entry e = entries[i];
            if (e.base == chunk && e.capacity == size && e.region != null) {
                return take(i);
            }
            if (e.region == null) {
                free = i;
            } else if (e.inflight == 0 && (oldest < 0 || e.lastUse < entries[oldest].lastUse)) {
                oldest = i;
            }
        }
        int slot = free >= 0 ? free : used < ENTRIES ? used++ : oldest;
        if (slot < 0) {
            return -1;
        }
        drop(slot);
        Entry e = entries[slot];
        try {
            e.region = loop.register(MemorySegment.ofAddress(chunk).reinterpret(size), Access.SEND);
        } catch (FabricException refused) {
            // the provider refused this memory (verbs cannot pin it, say): the write is copied as before
            return -1;
        }
        e.base = chunk;
        e.capacity = size;
        CHUNKS_REGISTERED.incrementAndGet();
        return take(slot);
    }

    private int take(int i) {
        entries[i].inflight++;
        entries[i].lastUse = ++clock;
        return i;
    }

    MemoryRegion region(int entry) {
        return entries[entry].region;
    }

    /** A send from {@code entry} completed (or was refused, or its endpoint closed). */
    void release(int entry) {
        entries[entry].inflight--;
    }

    /** Deregisters every chunk no send reads; called when the domain's last stream closed and at loop close. */
    void clear() {
        for (int i = 0; i < used; i++) {
            if (entries[i].inflight == 0) {
                drop(i);
            }
        }
    }

    private void drop(int i) {
        Entry e = entries[i];
        MemoryRegion r = e.region;
        if (r != null) {
            e.region = null;
            e.base = 0;
            e.capacity = 0;
            loop.deregister(r);
        }
    }
}
