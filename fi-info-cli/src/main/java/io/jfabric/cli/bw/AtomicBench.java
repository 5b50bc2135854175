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
 *
 * <p>With -c the client checks each test ({@link AtomicExpectation}): it tells the server the element to start the
 * target at, and after the test the server sends back what the target holds; the client compares that, and what
 * its fetches returned, with the values computed from the operation, datatype and number of operations. The
 * server follows whichever the client asks, so only the client needs -c.
 */
final class AtomicBench {
    private static final String[] KIND = {"", "fetch_", "compare_"};
    /** The client's count before a test: run one; run one and check it (the target's start and end go by name). */
    private static final long TEST = 1;
    private static final long CHECKED_TEST = 2;

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
    /** -c: what each failed check said; empty when every test held what was expected. */
    private final List<String> mismatches = new java.util.ArrayList<>();

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
                    boolean check = o.verify() && AtomicExpectation.checks(t);
                    src.asSlice(0, t.size()).copyFrom(MemorySegment.ofArray(AtomicExpectation.operand(op, t)));
                    cmp.asSlice(0, t.size()).copyFrom(MemorySegment.ofArray(AtomicExpectation.compare(op, t)));
                    res.fill((byte) 0xa5);
                    s.ctrl.exchangeCount(check ? CHECKED_TEST : TEST);
                    if (check) {
                        s.ctrl.sendName(AtomicExpectation.start(op, t), 0);
                    }
                    s.ctrl.sync();
                    int k = kind;
                    long start = WindowRunner.run(o, o.window(), histogram, new Progress(System.err, false),
                            done -> window(k, op, t, src.asSlice(0, t.size()), cmp.asSlice(0, t.size()),
                                    res.asSlice(0, t.size())));
                    long elapsed = System.nanoTime() - start;
                    s.ctrl.sync();
                    if (check) {
                        byte[] target = s.ctrl.recvName().bytes();
                        String miss = AtomicExpectation.mismatch(kind, op, t,
                                (long) (o.warmup() + o.iterations()) * o.window(), o.window(), target,
                                res.asSlice(0, t.size()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                        if (miss != null) {
                            mismatches.add(miss);
                            System.err.println("jfabric atomic -c: " + miss);
                        }
                    } else if (o.verify()) {
                        System.err.println("jfabric atomic -c: " + KIND[kind] + AtomicCommand.shortName(op) + " on "
                                + t.cName() + " not checked: Java has no 80-bit long double arithmetic");
                    }
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

    /** -c: the failed checks' messages (empty when all held, or without -c). */
    List<String> mismatches() {
        return mismatches;
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
            MemorySegment target = s.rmaArea;
            long test;
            while ((test = s.ctrl.exchangeCount(0)) != 0) {
                byte[] start = null;
                if (test == CHECKED_TEST) {
                    start = s.ctrl.recvName().bytes();
                    // the driver thread only reads the CQs, and no atomic is in flight between two tests
                    target.asSlice(0, start.length).copyFrom(MemorySegment.ofArray(start));
                }
                s.ctrl.sync();
                s.ctrl.sync();
                if (start != null) {
                    s.ctrl.sendName(target.asSlice(0, start.length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            0);
                }
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
