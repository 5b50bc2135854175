package io.jfabric.cli.bw;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fabtests' {@code bandwidth_rma()} (fi_rma_bw -o read|write|writedata) on jfabric: the server registers a
 * target area and sends its address and key over the control channel; per size the client issues
 * {@code warmup + iterations} windows of RMA operations at it and waits for each window's completions,
 * then sends a "done" message; the server, which drives its own progress meanwhile (and counts the
 * remote CQ data completions of writedata), answers with an ack that stops the client's clock. With -c the
 * client writes a per-size pattern that the server checks when "done" arrives, and the server fills the
 * area with it before a read run, which the client checks after every read. With --iov N each operation names its
 * buffer as N pieces (fi_readv, fi_writev, or fi_writemsg for writedata), cut when a size starts, so posting still
 * allocates nothing.
 */
final class RmaBandwidth {
    enum Op { READ, WRITE, WRITEDATA }

    private final BenchSession s;
    private final BenchOptions o;
    private final Op op;
    private final BenchReport report;
    private final Progress progress;
    private final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
    private final SlotContext[] contexts;
    private final SlotContext control = new SlotContext(-1);
    private final int iov;
    /** With --iov above 1: each slot's pieces, their descriptors, and the writedata form of each slot. */
    private MemorySegment[][] pieces;
    private MemoryRegion[] descs;
    private RmaMsg[] msgs;
    private CompletionPoller tx;
    private CompletionPoller rx;

    RmaBandwidth(BenchSession session, Op op, int iov, BenchReport report, Progress progress) {
        this.s = session;
        this.iov = iov;
        this.o = session.opts;
        this.op = op;
        this.report = report;
        this.progress = progress;
        this.contexts = SlotContext.array(o.window());
    }

    void run() throws IOException {
        tx = new CompletionPoller(s.txCq, 64, "RMA", o.timeoutMs());
        rx = new CompletionPoller(s.rxCq, 64, "receive", o.timeoutMs());
        tx.watch(s.watch);
        rx.watch(s.watch);
        String name = op.name().toLowerCase(java.util.Locale.ROOT);
        for (long size : o.sizes()) {
            int window = Math.min(o.window(), s.slotsFor(size));
            MemorySegment[] slots = new MemorySegment[window];
            for (int i = 0; i < window; i++) {
                slots[i] = s.txSlot(i, size).asSlice(s.txPrefix, size);
            }
            cut(slots, size);
            long total = (long) (o.warmup() + o.iterations()) * window;
            histogram.reset();
            progress.start(size);
            postRecv(); // "done" on the server, the ack on the client
            if (o.isClient()) {
                if (o.verify() && op != Op.READ) {
                    for (MemorySegment slot : slots) {
                        fill(slot, size);
                    }
                }
                s.ctrl.sync();
                long elapsed = initiate(size, window, slots);
                report.add(BenchRow.of(name, size, (long) o.iterations() * window, elapsed, histogram));
            } else {
                if (o.verify() && op == Op.READ) {
                    fill(s.rmaArea.asSlice(0, size), size);
                }
                s.ctrl.sync();
                long elapsed = serve(size, total);
                report.add(BenchRow.of(name + "-target", size, (long) o.iterations() * window, elapsed, histogram));
            }
        }
    }

    /** Cuts each slot into the pieces its operations name (fewer when the size is smaller than --iov). */
    private void cut(MemorySegment[] slots, long size) {
        pieces = IovArg.cut(slots, size, iov);
        if (pieces == null) {
            return;
        }
        int n = pieces[0].length;
        descs = IovArg.descriptors(s.mr, n);
        msgs = new RmaMsg[slots.length];
        for (int i = 0; i < slots.length; i++) {
            RmaMsg m = new RmaMsg(n);
            m.iov = pieces[i];
            m.desc = descs;
            m.iovCount = n;
            m.addr = s.peer;
            m.context = contexts[i];
            m.rmaIov[0].set(s.remoteAddr, size, s.remoteKey);
            m.rmaIovCount = 1;
            msgs[i] = m;
        }
    }

    /** The windows ({@link WindowRunner}), then "done" to the target and its ack. */
    private long initiate(long size, int window, MemorySegment[] slots) {
        long start = WindowRunner.run(o, window, histogram, progress, done -> initiateWindow(size, window, slots, done));
        sendControl();
        awaitControl();
        return System.nanoTime() - start;
    }

    private void initiateWindow(long size, int window, MemorySegment[] slots, long done) {
        for (int j = 0; j < window; j++) {
            SlotContext c = contexts[j];
            c.postedAt = System.nanoTime();
            post(slots[j], j, size, c, done + j);
        }
        int outstanding = window;
        while (outstanding > 0) {
            long deadline = tx.deadline();
            int n;
            while ((n = tx.poll()) == 0) {
                tx.checkDeadlineAndPeer(deadline, op.name().toLowerCase(java.util.Locale.ROOT) + " completion");
            }
            long now = System.nanoTime();
            for (int k = 0; k < n; k++) {
                SlotContext c = (SlotContext) tx.entries[k].context;
                histogram.recordValue(now - c.postedAt);
                if (o.verify() && op == Op.READ) {
                    check(slots[c.slot], size, "read into slot " + c.slot);
                    slots[c.slot].fill((byte) 0);
                }
            }
            outstanding -= n;
        }
    }

    private long serve(long size, long total) {
        long start = System.nanoTime();
        long cqData = 0;
        long deadline = rx.deadline();
        boolean done = false;
        while (!done) {
            int n = rx.poll();
            tx.poll();
            if (n == 0) {
                rx.checkDeadlineAndPeer(deadline, "\"done\" from the initiator");
                continue;
            }
            deadline = rx.deadline();
            for (int k = 0; k < n; k++) {
                CqEntry e = rx.entries[k];
                if ((e.flags & OpFlags.REMOTE_CQ_DATA) != 0 && (e.flags & OpFlags.RECV) == 0) {
                    cqData++;
                } else {
                    done = true;
                }
            }
        }
        long elapsed = System.nanoTime() - start;
        if (op == Op.WRITEDATA && cqData != total) {
            throw new FabricException(Errno.EIO, "the target saw " + cqData + " remote CQ data completions for "
                    + total + " writedata operations");
        }
        if (o.verify() && op != Op.READ) {
            check(s.rmaArea.asSlice(0, size), size, "target area after the writes");
        }
        sendControl();
        long d = tx.deadline();
        while (tx.poll() == 0) {
            tx.checkDeadline(d, "ack completion");
        }
        return elapsed;
    }

    private void post(MemorySegment buf, int slot, long size, SlotContext c, long seq) {
        long deadline = tx.deadline();
        while (true) {
            int rc = pieces == null ? postWhole(buf, c, seq) : postPieces(slot, c, seq);
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                throw new FabricException(-rc, "fi_" + op.name().toLowerCase(java.util.Locale.ROOT) + " of " + size
                        + " bytes failed");
            }
            s.rxCq.read(rx.entries, 0);
            tx.checkDeadlineAndPeer(deadline, "room in the transmit queue");
        }
    }

    private int postWhole(MemorySegment buf, SlotContext c, long seq) {
        return switch (op) {
            case READ -> s.ep.read(buf, s.mr, s.peer, s.remoteAddr, s.remoteKey, c);
            case WRITE -> s.ep.write(buf, s.mr, s.peer, s.remoteAddr, s.remoteKey, c);
            case WRITEDATA -> s.ep.writedata(buf, s.mr, seq, s.peer, s.remoteAddr, s.remoteKey, c);
        };
    }

    private int postPieces(int slot, SlotContext c, long seq) {
        MemorySegment[] p = pieces[slot];
        return switch (op) {
            case READ -> s.ep.readv(p, descs, p.length, s.peer, s.remoteAddr, s.remoteKey, c);
            case WRITE -> s.ep.writev(p, descs, p.length, s.peer, s.remoteAddr, s.remoteKey, c);
            case WRITEDATA -> {
                RmaMsg m = msgs[slot];
                m.data = seq;
                m.context = c;
                yield s.ep.writemsg(m, OpFlags.REMOTE_CQ_DATA | OpFlags.COMPLETION);
            }
        };
    }

    private void postRecv() {
        int rc = s.ep.recv(s.rxSlot(0, 64), s.mr, s.peer, control);
        if (rc != 0) {
            throw new FabricException(-rc, "fi_recv of the control message failed");
        }
    }

    private void sendControl() {
        MemorySegment m = s.txSlot(0, 4);
        long deadline = tx.deadline();
        int rc;
        while ((rc = s.ep.send(m, s.mr, s.peer, control)) == -Errno.EAGAIN) {
            tx.poll();
            tx.checkDeadlineAndPeer(deadline, "room in the transmit queue");
        }
        if (rc != 0) {
            throw new FabricException(-rc, "fi_send of the control message failed");
        }
    }

    /**
     * Waits for the target's ack and for our "done" to complete: one progress call can bring both, and a send
     * completion left in the CQ would be taken for one of the next size's operations.
     */
    private void awaitControl() {
        long deadline = rx.deadline();
        boolean acked = false;
        boolean sent = false;
        while (!acked || !sent) {
            acked |= rx.poll() > 0;
            int n = tx.poll();
            for (int k = 0; k < n; k++) {
                sent |= tx.entries[k].context == control;
            }
            rx.checkDeadline(deadline, acked ? "completion of the \"done\" send" : "ack from the target");
        }
    }

    /** A pattern that depends on the size, so a stale area from the previous size never passes. */
    private static void fill(MemorySegment seg, long size) {
        for (long i = 0; i < size; i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) ((i * 7 + size * 31) % 251));
        }
    }

    private static void check(MemorySegment seg, long size, String what) {
        for (long i = 0; i < size; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) != (byte) ((i * 7 + size * 31) % 251)) {
                throw new FabricException(Errno.EIO, "data check failed: " + what + " differs at byte " + i
                        + " (size " + size + ")");
            }
        }
    }
}
