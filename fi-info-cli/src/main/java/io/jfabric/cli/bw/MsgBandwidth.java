package io.jfabric.cli.bw;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.TaggedMsg;
import io.jfabric.cli.pingpong.IntegrityPattern;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * fabtests' {@code bandwidth()} (fi_msg_bw, fi_rdm_tagged_bw) on jfabric: per size, after a control-channel
 * sync, the client posts a window of sends and waits for their completions, {@code warmup + iterations}
 * times, and the server keeps a window of receives posted; when all arrived the server sends one ack and
 * the client stops its clock when the ack lands. In rate mode sizes up to inject_size go out with
 * fi_inject (no completion), which is how fabtests measures message rate. The latency histogram holds
 * post-to-completion times of the timed sends (the post call itself for injects). With {@code more}, every
 * post of a window but the last carries FI_MORE, so a provider that honours it can send the window at once.
 * With --iov N the client sends each message from N pieces of its buffer (fi_sendv, fi_tsendv).
 */
final class MsgBandwidth {
    static final long TAG = 0xB1;

    private final BenchSession s;
    private final BenchOptions o;
    private final BenchReport report;
    private final Progress progress;
    private final IntegrityPattern pattern = new IntegrityPattern();
    private final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
    private final SlotContext[] contexts;
    private final SlotContext ackContext = new SlotContext(-1);
    private final Msg moreMsg = new Msg(1);
    private final TaggedMsg moreTaggedMsg = new TaggedMsg(1);
    private final int iov;
    /** With --iov above 1: each send slot's pieces, and their descriptors. */
    private MemorySegment[][] pieces;
    private MemoryRegion[] descs;
    private CompletionPoller tx;
    private CompletionPoller rx;

    MsgBandwidth(BenchSession session, int iov, BenchReport report, Progress progress) {
        this.s = session;
        this.iov = iov;
        this.o = session.opts;
        this.report = report;
        this.progress = progress;
        this.contexts = SlotContext.array(o.window());
    }

    void run() throws IOException {
        tx = new CompletionPoller(s.txCq, 64, "send", o.timeoutMs());
        rx = new CompletionPoller(s.rxCq, 64, "receive", o.timeoutMs());
        tx.watch(s.watch);
        rx.watch(s.watch);
        for (long size : o.sizes()) {
            int window = Math.min(o.window(), s.slotsFor(size));
            MemorySegment[] txSlots = new MemorySegment[window];
            MemorySegment[] rxSlots = new MemorySegment[window];
            for (int i = 0; i < window; i++) {
                txSlots[i] = s.txSlot(i, size);
                rxSlots[i] = s.rxSlot(i, size);
            }
            long total = (long) (o.warmup() + o.iterations()) * window;
            histogram.reset();
            progress.start(size);
            if (o.isClient()) {
                // the prefix space, where a provider asks for one, travels in the first piece
                pieces = IovArg.cut(txSlots, s.txPrefix + size, iov);
                descs = pieces == null ? null : IovArg.descriptors(s.mr, pieces[0].length);
                postRecv(s.rxSlot(0, 64), ackContext); // the server's ack (4 bytes)
                s.ctrl.sync();
                long elapsed = send(size, window, txSlots);
                report.add(BenchRow.of(testName(), size, (long) o.iterations() * window, elapsed, histogram));
            } else {
                int posted = 0;
                for (; posted < Math.min(window, total); posted++) {
                    postRecv(rxSlots[posted], contexts[posted]);
                }
                s.ctrl.sync();
                long elapsed = receive(size, window, total, posted, rxSlots);
                report.add(BenchRow.of(testName() + "-rx", size, (long) o.iterations() * window, elapsed, histogram));
            }
        }
    }

    private String testName() {
        return (o.rate() ? "rate-" : "") + (o.tagged() ? "tagged" : "msg");
    }

    /** The client: the windows ({@link WindowRunner}), then the server's ack. */
    private long send(long size, int window, MemorySegment[] txSlots) {
        boolean inject = o.rate() && Long.compareUnsigned(size, s.fi.txAttr.injectSize) <= 0;
        long start = WindowRunner.run(o, window, histogram, progress, done -> sendWindow(size, window, txSlots, inject));
        awaitAck();
        return System.nanoTime() - start;
    }

    private void sendWindow(long size, int window, MemorySegment[] txSlots, boolean inject) {
        int outstanding = 0;
        for (int j = 0; j < window; j++) {
            MemorySegment buf = txSlots[j];
            if (o.verify()) {
                pattern.fill(buf.asSlice(s.txPrefix, size), size);
            }
            SlotContext c = contexts[j];
            c.postedAt = System.nanoTime();
            if (inject) {
                postInject(buf, o.more() && j < window - 1);
                histogram.recordValue(System.nanoTime() - c.postedAt);
            } else {
                postSend(buf, pieces == null ? null : pieces[j], c, o.more() && j < window - 1);
                outstanding++;
            }
        }
        while (outstanding > 0) {
            long deadline = tx.deadline();
            int n;
            while ((n = tx.poll()) == 0) {
                tx.checkDeadlineAndPeer(deadline, "send completion");
            }
            long now = System.nanoTime();
            for (int k = 0; k < n; k++) {
                if (tx.entries[k].context instanceof SlotContext c) {
                    histogram.recordValue(now - c.postedAt);
                }
            }
            outstanding -= n;
        }
    }

    /** The server: keep the window posted, check every message, ack when all arrived. */
    private long receive(long size, int window, long total, long posted, MemorySegment[] rxSlots) {
        long received = 0;
        long timedFrom = (long) o.warmup() * window;
        long start = System.nanoTime();
        long last = start;
        long deadline = rx.deadline();
        while (received < total) {
            int n = rx.poll();
            if (n == 0) {
                rx.checkDeadlineAndPeer(deadline, "message (" + received + " of " + total + " arrived)");
                continue;
            }
            deadline = rx.deadline();
            long now = System.nanoTime();
            for (int k = 0; k < n; k++) {
                CqEntry e = rx.entries[k];
                SlotContext c = (SlotContext) e.context;
                if (o.verify()) {
                    check(rxSlots[c.slot], size, e.len);
                }
                received++;
                if (received == timedFrom) {
                    start = now;
                } else if (received > timedFrom) {
                    histogram.recordValue(now - last);
                }
                last = now;
                if (posted < total) {
                    postRecv(rxSlots[c.slot], c);
                    posted++;
                }
            }
            progress.update(received, total);
        }
        long elapsed = System.nanoTime() - start;
        SlotContext ack = ackContext;
        postSend(s.txSlot(0, 4), null, ack, false);
        long d = tx.deadline();
        while (tx.poll() == 0) {
            tx.checkDeadline(d, "ack completion");
        }
        return elapsed;
    }

    private void check(MemorySegment slot, long size, long len) {
        if (len != size) {
            throw new FabricException(Errno.EIO, "message of " + len + " bytes where " + size + " were sent");
        }
        long bad = pattern.check(slot.asSlice(s.rxPrefix, size), size);
        if (bad >= 0) {
            throw new FabricException(Errno.EIO, "data check failed: message " + pattern.checkIteration() + " of size "
                    + size + " differs at byte " + bad);
        }
    }

    private void awaitAck() {
        long deadline = rx.deadline();
        while (true) {
            int n = rx.poll();
            if (n > 0) {
                return;
            }
            // keep draining transmit completions (e.g. of injects that report none, harmless)
            tx.poll();
            rx.checkDeadline(deadline, "ack from the server");
        }
    }

    /** Sends {@code buf}, or the pieces {@code cut} of it when that is not null. */
    private void postSend(MemorySegment buf, MemorySegment[] cut, SlotContext c, boolean withMore) {
        long deadline = tx.deadline();
        while (true) {
            int rc = withMore ? withMore(buf, s.mr, c, OpFlags.COMPLETION | OpFlags.MORE)
                    : cut != null ? sendPieces(cut, c)
                    : o.tagged() ? s.ep.tsend(buf, s.mr, s.peer, TAG, c) : s.ep.send(buf, s.mr, s.peer, c);
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                throw new FabricException(-rc, (o.tagged() ? "fi_tsend" : "fi_send") + " failed");
            }
            s.rxCq.read(rx.entries, 0); // progress only
            tx.checkDeadlineAndPeer(deadline, "room in the transmit queue");
        }
    }

    private int sendPieces(MemorySegment[] cut, SlotContext c) {
        return o.tagged() ? s.ep.tsendv(cut, descs, cut.length, s.peer, TAG, c)
                : s.ep.sendv(cut, descs, cut.length, s.peer, c);
    }

    private void postInject(MemorySegment buf, boolean withMore) {
        long deadline = tx.deadline();
        while (true) {
            int rc = withMore ? withMore(buf, null, null, OpFlags.INJECT | OpFlags.MORE)
                    : o.tagged() ? s.ep.tinject(buf, s.peer, TAG) : s.ep.inject(buf, s.peer);
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                throw new FabricException(-rc, (o.tagged() ? "fi_tinject" : "fi_inject") + " failed");
            }
            tx.poll();
            tx.checkDeadlineAndPeer(deadline, "room in the transmit queue");
        }
    }

    /** A post through fi_sendmsg / fi_tsendmsg, which takes the flags (FI_MORE) the plain calls cannot. */
    private int withMore(MemorySegment buf, MemoryRegion mr, Object context, long flags) {
        if (o.tagged()) {
            moreTaggedMsg.set(buf, mr, s.peer, context);
            moreTaggedMsg.tag = TAG;
            return s.ep.tsendmsg(moreTaggedMsg, flags);
        }
        moreMsg.set(buf, mr, s.peer, context);
        return s.ep.sendmsg(moreMsg, flags);
    }

    private void postRecv(MemorySegment buf, SlotContext c) {
        long deadline = rx.deadline();
        while (true) {
            int rc = o.tagged() ? s.ep.trecv(buf, s.mr, s.peer, TAG, 0, c) : s.ep.recv(buf, s.mr, s.peer, c);
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                throw new FabricException(-rc, (o.tagged() ? "fi_trecv" : "fi_recv") + " failed");
            }
            s.txCq.read(tx.entries, 0);
            rx.checkDeadlineAndPeer(deadline, "room in the receive queue");
        }
    }
}
