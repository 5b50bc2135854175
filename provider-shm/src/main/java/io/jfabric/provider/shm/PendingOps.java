package io.jfabric.provider.shm;

/** A fixed table of {@link PendingOp}s with a free stack: no allocation once built. */
final class PendingOps {
    private final PendingOp[] ops;
    private final int[] free;
    private int freeCount;

    PendingOps(int capacity) {
        ops = new PendingOp[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            ops[i] = new PendingOp(i);
            free[i] = capacity - 1 - i;
        }
        freeCount = capacity;
    }

    /** A free op, or null when all are in flight (the caller answers EAGAIN). */
    PendingOp acquire() {
        if (freeCount == 0) {
            return null;
        }
        PendingOp op = ops[free[--freeCount]];
        op.busy = true;
        op.generation++;
        return op;
    }

    void release(PendingOp op) {
        op.busy = false;
        op.context = null;
        op.peer = null;
        op.source.clear();
        op.ringEnd = -1;
        op.cmaBuffers.clear();
        for (int i = 0; i < op.resultCount; i++) {
            op.results[i] = null;
        }
        op.resultCount = 0;
        free[freeCount++] = op.index;
    }

    /** The busy op with this id, or null (unknown index, wrong generation, already completed). */
    PendingOp find(long id) {
        int index = (int) id;
        if (index < 0 || index >= ops.length) {
            return null;
        }
        PendingOp op = ops[index];
        return op.busy && op.generation == (int) (id >>> 32) ? op : null;
    }

    int inFlight() {
        return ops.length - freeCount;
    }

    int capacity() {
        return ops.length;
    }

    PendingOp at(int i) {
        return ops[i];
    }
}
