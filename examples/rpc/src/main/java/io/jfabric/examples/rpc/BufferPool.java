package io.jfabric.examples.rpc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/** Fixed registered buffers a server moves bulk data through; registered once, so transfers never register. */
final class BufferPool implements AutoCloseable {
    private final ArrayDeque<BulkHandle> free = new ArrayDeque<>();
    private final BulkHandle[] all;
    private final long bufferSize;

    BufferPool(RpcEngine engine, Arena arena, int count, long bufferSize) {
        this.bufferSize = bufferSize;
        all = new BulkHandle[count];
        for (int i = 0; i < count; i++) {
            MemorySegment seg = arena.allocate(bufferSize, 4096);
            all[i] = engine.bulkRegister(seg);
            free.add(all[i]);
        }
    }

    long bufferSize() {
        return bufferSize;
    }

    /** A free buffer, or null when all are in use. */
    BulkHandle take() {
        return free.poll();
    }

    void give(BulkHandle h) {
        free.add(h);
    }

    @Override
    public void close() {
        for (BulkHandle h : all) {
            h.release();
        }
    }
}
