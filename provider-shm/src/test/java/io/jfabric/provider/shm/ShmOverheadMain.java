package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.Fabrics;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Software cost of one message with no scheduling in the way: one thread posts a receive on B,
 * sends A to B, and reads both completions. Run by hand; prints ns per message and the bytes the
 * thread allocated over the timed loop (should be 0).
 */
public final class ShmOverheadMain {
    public static void main(String[] args) {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long n = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
        try (ShmNode a = new ShmNode(); ShmNode b = new ShmNode(); Arena arena = Arena.ofShared()) {
            long ab = a.insert(b);
            MemorySegment tx = arena.allocate(size);
            MemorySegment rx = arena.allocate(size);
            CqEntry[] e = CqEntry.array(2);
            loop(a, b, ab, tx, rx, e, n / 5);
            long alloc0 = ThreadAllocations.now();
            long t0 = System.nanoTime();
            loop(a, b, ab, tx, rx, e, n);
            long ns = System.nanoTime() - t0;
            long alloc = ThreadAllocations.now() - alloc0;
            System.out.printf("size %d: %.1f ns per message (post recv + send + 2 completions), allocated %d bytes%n",
                    size, ns / (double) n, alloc);
        }
    }

    private static void loop(ShmNode a, ShmNode b, long ab, MemorySegment tx, MemorySegment rx, CqEntry[] e, long n) {
        for (long i = 0; i < n; i++) {
            b.ep.recv(rx, null, Fabrics.ADDR_UNSPEC, null);
            if (a.ep.send(tx, null, ab, null) != 0) {
                throw new IllegalStateException();
            }
            while (a.cq.read(e, 1) != 1) {
                Thread.onSpinWait();
            }
            while (b.cq.read(e, 1) != 1) {
                Thread.onSpinWait();
            }
        }
    }
}
