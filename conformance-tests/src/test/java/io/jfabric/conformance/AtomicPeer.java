package io.jfabric.conformance;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * One contender of {@link AtomicContentionTest}, in its own JVM: {@code ops} FI_SUM of 1 on the target's counter
 * (a window of outstanding operations, every completion checked), then {@code rounds} critical sections under a
 * lock taken with FI_CSWAP (0 to this peer's id) and released with FI_CSWAP (id to 0); inside, it reads a second
 * word with FI_ATOMIC_READ and writes it back plus one with FI_ATOMIC_WRITE, an increment that only mutual
 * exclusion keeps exact. Says DONE, or exits non-zero with the reason on stderr.
 *
 * <p>Arguments: case id, role, target address (hex), key, counter address, lock address, word address, peer id,
 * ops, rounds. Says SUMMED after the FI_SUM phase.
 */
public final class AtomicPeer {
    private static final long WINDOW = 16;
    private static final long T = 60_000;

    private final StateDump dump = new StateDump();
    private final Poller poller = new Poller();
    private final Side me;
    private final CqEntry[] ce = {new CqEntry()};
    private final CqErrEntry err = new CqErrEntry();

    private AtomicPeer(FabricCase c) {
        me = new Side("atomic-peer", c, dump);
        EndpointPair.openSide(me, c, dump, new EndpointPair.Options(), c.freshInfo(), poller);
    }

    public static void main(String[] args) throws Exception {
        Thread killer = PeerIo.lifetimeGuard(Slow.ms(PeerMain.LIFETIME_MS) + 5_000, "atomic peer");
        int rc;
        try {
            AtomicPeer p = new AtomicPeer(AtomicTest.withAtomics(FabricCases.byId(args[0])));
            long target = p.me.av.insert(HexFormat.of().parseHex(args[2]));
            rc = p.run(target, Long.parseLong(args[3]), Long.parseLong(args[4]), Long.parseLong(args[5]),
                    Long.parseLong(args[6]), Long.parseLong(args[7]), Integer.parseInt(args[8]),
                    Integer.parseInt(args[9]));
        } catch (Throwable t) {
            t.printStackTrace();
            rc = 2;
        }
        System.out.flush();
        System.err.flush();
        killer.interrupt();
        Runtime.getRuntime().halt(rc);
    }

    private int run(long target, long key, long counter, long lock, long word, long id, int ops, int rounds) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment one = Mem.alloc(arena, 8);
            one.set(ValueLayout.JAVA_LONG, 0, 1);
            long posted = 0;
            long done = 0;
            long started = System.nanoTime();
            while (done < ops) {
                while (posted < ops && posted - done < WINDOW) {
                    int rc = me.ep.atomic(one, me.desc(one), target, counter, key, AtomicDatatype.UINT64,
                            AtomicOp.SUM, null);
                    if (rc == -Errno.EAGAIN) {
                        break;
                    }
                    if (rc != 0) {
                        System.err.println("fi_atomic(FI_SUM) returned " + Errno.name(rc));
                        return 3;
                    }
                    posted++;
                }
                if (posted == done) {
                    // EAGAIN with nothing in flight (a connected provider's first post, while its connection comes
                    // up): no completion is coming, so drive progress and post again
                    poller.drive();
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                    continue;
                }
                if (!complete("FI_SUM")) {
                    return 3;
                }
                done++;
            }
            PeerIo.say("SUMMED");
            // on stderr (the peer's log): how long the operations took, apart from the JVM's start
            System.err.println("FI_SUM phase: " + (System.nanoTime() - started) / 1_000_000 + " ms");
            started = System.nanoTime();
            MemorySegment cmp = Mem.alloc(arena, 8);
            MemorySegment val = Mem.alloc(arena, 8);
            MemorySegment res = Mem.alloc(arena, 8);
            for (int i = 0; i < rounds; i++) {
                swap(target, key, lock, 0, id, cmp, val, res, arena);
                while (res.get(ValueLayout.JAVA_LONG, 0) != 0) {
                    Thread.yield(); // the holder needs the CPU more than another try does
                    swap(target, key, lock, 0, id, cmp, val, res, arena);
                }
                fetch(target, key, word, AtomicOp.ATOMIC_READ, null, res);
                val.set(ValueLayout.JAVA_LONG, 0, res.get(ValueLayout.JAVA_LONG, 0) + 1);
                fetch(target, key, word, AtomicOp.ATOMIC_WRITE, val, res);
                swap(target, key, lock, id, 0, cmp, val, res, arena);
                if (res.get(ValueLayout.JAVA_LONG, 0) != id) {
                    System.err.println("released a lock held by " + res.get(ValueLayout.JAVA_LONG, 0));
                    return 3;
                }
            }
            System.err.println("FI_CSWAP lock phase: " + (System.nanoTime() - started) / 1_000_000 + " ms");
        }
        PeerIo.say("DONE");
        return 0;
    }

    /**
     * Waits for the next completion sleeping in fi_cq_sread, not spinning: five processes share the machine's
     * cores, and the target's progress needs them. False (and the reason on stderr) for an error or time-out.
     */
    private boolean complete(String what) {
        long deadline = System.nanoTime() + T * 1_000_000L;
        while (System.nanoTime() < deadline) {
            int n = me.txCq.sread(ce, 1, 100);
            if (n == 1) {
                return true;
            }
            if (n == -Errno.EAVAIL) {
                me.txCq.readError(err, 0);
                System.err.println(what + " failed: " + err);
                return false;
            }
            if (n != -Errno.EAGAIN) {
                System.err.println(what + ": fi_cq_sread returned " + Errno.name(n));
                return false;
            }
        }
        System.err.println(what + ": no completion within " + T + " ms");
        return false;
    }

    private void swap(long target, long key, long lock, long expect, long next, MemorySegment cmp, MemorySegment val,
                      MemorySegment res, Arena arena) {
        cmp.set(ValueLayout.JAVA_LONG, 0, expect);
        val.set(ValueLayout.JAVA_LONG, 0, next);
        poller.post("FI_CSWAP", () -> me.ep.compareAtomic(val, me.desc(val), cmp, me.desc(cmp), res, me.desc(res),
                target, lock, key, AtomicDatatype.UINT64, AtomicOp.CSWAP, null));
        if (!complete("FI_CSWAP")) {
            throw new IllegalStateException("FI_CSWAP failed");
        }
    }

    private void fetch(long target, long key, long word, AtomicOp op, MemorySegment val, MemorySegment res) {
        poller.post(op.cName(), () -> me.ep.fetchAtomic(val, val == null ? null : me.desc(val), res, me.desc(res),
                target, word, key, AtomicDatatype.UINT64, op, null));
        if (!complete(op.cName())) {
            throw new IllegalStateException(op.cName() + " failed");
        }
    }
}
