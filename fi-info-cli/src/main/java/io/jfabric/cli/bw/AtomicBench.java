package io.jfabric.cli.bw;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * fabtests' fi_rdm_atomic on jfabric, timed like rma-bw: for each of base (fi_atomic), fetch (fi_fetch_atomic)
 * and compare (fi_compare_atomic), each operation and datatype the provider answers valid for, the client runs
 * {@code warmup + iterations} windows of one-element operations on the server's target element and records each
 * one's latency (post to completion). The server only drives its progress (a target applies atomics there, as
 * libfabric's shm and rxm do) until the client's last sync; the two sync over the control channel around every
 * test, so no fabric message is needed besides the atomics. Combinations the provider refuses are skipped, as
 * fabtests skips them.
 */
final class AtomicBench {
    private static final String[] KIND = {"", "fetch_", "compare_"};

    private final BenchSession s;
    private final BenchOptions o;
    private final List<AtomicOp> ops;
    private final List<AtomicDatatype> types;
    private final BenchReport report;
    private final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
    private final SlotContext[] contexts;
    private CompletionPoller tx;
    /** Completions read while a post waited for room in the window being posted; they count as done. */
    private int early;

    AtomicBench(BenchSession s, List<AtomicOp> ops, List<AtomicDatatype> types, BenchReport report) {
        this.s = s;
        this.o = s.opts;
        this.ops = ops;
        this.types = types;
        this.report = report;
        this.contexts = SlotContext.array(o.window());
    }

    void run() throws IOException {
        tx = new CompletionPoller(s.txCq, 64, "atomic", o.timeoutMs());
        if (!o.isClient()) {
            serve();
            return;
        }
        MemorySegment src = s.txSlot(0, 64).asSlice(s.txPrefix, 32);
        MemorySegment cmp = s.txSlot(0, 64).asSlice(s.txPrefix + 32, 32);
        MemorySegment res = s.rxSlot(0, 64).asSlice(0, 32);
        src.fill((byte) 0);
        cmp.fill((byte) 0);
        int tests = 0;
        for (int kind = 0; kind < 3; kind++) {
            for (AtomicOp op : ops) {
                for (AtomicDatatype t : types) {
                    if (valid(kind, t, op) < 1) {
                        continue;
                    }
                    s.ctrl.exchangeCount(1);
                    s.ctrl.sync();
                    int k = kind;
                    long start = WindowRunner.run(o, o.window(), histogram, new Progress(System.err, false),
                            done -> window(k, op, t, src.asSlice(0, t.size()), cmp.asSlice(0, t.size()),
                                    res.asSlice(0, t.size())));
                    long elapsed = System.nanoTime() - start;
                    s.ctrl.sync();
                    report.add(BenchRow.of(KIND[kind] + AtomicCommand.shortName(op) + "_"
                            + AtomicCommand.shortName(t), t.size(), (long) o.iterations() * o.window(), elapsed,
                            histogram));
                    tests++;
                }
            }
        }
        s.ctrl.exchangeCount(0);
        if (tests == 0) {
            throw new FabricException(Errno.EOPNOTSUPP, "the provider offers none of the operations asked for");
        }
    }

    private long valid(int kind, AtomicDatatype t, AtomicOp op) {
        return switch (kind) {
            case 0 -> s.ep.atomicValid(t, op);
            case 1 -> s.ep.fetchAtomicValid(t, op);
            default -> s.ep.compareAtomicValid(t, op);
        };
    }

    /** The target: progress on its own thread until the client has no more tests. */
    private void serve() throws IOException {
        AtomicBoolean stop = new AtomicBoolean();
        Thread driver = Thread.ofPlatform().name("atomic-target").start(() -> {
            while (!stop.get()) {
                s.txCq.read(tx.entries, 0);
                s.rxCq.read(tx.entries, 0);
            }
        });
        try {
            while (s.ctrl.exchangeCount(0) != 0) {
                s.ctrl.sync();
                s.ctrl.sync();
            }
        } finally {
            stop.set(true);
            try {
                driver.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void window(int kind, AtomicOp op, AtomicDatatype t, MemorySegment src, MemorySegment cmp,
                        MemorySegment res) {
        early = 0;
        for (int j = 0; j < o.window(); j++) {
            SlotContext c = contexts[j];
            c.postedAt = System.nanoTime();
            post(kind, op, t, src, cmp, res, c);
        }
        int outstanding = o.window() - early;
        while (outstanding > 0) {
            long deadline = tx.deadline();
            int n;
            while ((n = tx.poll()) == 0) {
                tx.checkDeadline(deadline, "atomic completion");
            }
            record(n);
            outstanding -= n;
        }
    }

    private void record(int n) {
        long now = System.nanoTime();
        for (int k = 0; k < n; k++) {
            histogram.recordValue(now - ((SlotContext) tx.entries[k].context).postedAt);
        }
    }

    private void post(int kind, AtomicOp op, AtomicDatatype t, MemorySegment src, MemorySegment cmp,
                      MemorySegment res, SlotContext c) {
        long deadline = tx.deadline();
        while (true) {
            int rc = switch (kind) {
                case 0 -> s.ep.atomic(src, s.mr, s.peer, s.remoteAddr, s.remoteKey, t, op, c);
                case 1 -> s.ep.fetchAtomic(op == AtomicOp.ATOMIC_READ ? null : src, s.mr, res, s.mr, s.peer,
                        s.remoteAddr, s.remoteKey, t, op, c);
                default -> s.ep.compareAtomic(src, s.mr, cmp, s.mr, res, s.mr, s.peer, s.remoteAddr, s.remoteKey, t,
                        op, c);
            };
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                throw new FabricException(-rc, KIND[kind] + op.cName() + " on " + t.cName() + " failed");
            }
            int n = tx.poll();
            record(n);
            early += n;
            tx.checkDeadline(deadline, "room in the transmit queue");
        }
    }
}
