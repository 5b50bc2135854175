package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FI_MULTI_RECV with messages that are pulled (RTS) rather than copied in one go: a heap buffer larger than a
 * bounce slot cannot be read with CMA, so its receiver pulls it chunk by chunk while later messages land after it.
 * Each message keeps the slice of the buffer it was matched to, in the order sent, and the buffer's last
 * completion, the one with FI_MULTI_RECV, comes after every message placed in it (fi_msg(3)).
 */
@Timeout(60)
class ShmMultiRecvTest extends ShmPairFixture {
    private static final int BUFFER = 256 * 1024;

    @Test
    void pulledMessagesKeepTheirSlicesAmongTheCopiedOnes() {
        MemorySegment buf = arena.allocate(BUFFER);
        b.ep.setOpt(EndpointOption.MIN_MULTI_RECV, 40_000);
        assertEquals(0, b.ep.recvmsg(new Msg().set(buf, null, Fabrics.ADDR_UNSPEC, "multi"), OpFlags.MULTI_RECV));
        // inline, pulled, bounce, pulled, bounce, pulled, pulled: 231,000 bytes, which leaves less than 40,000
        int[] sizes = {1000, 50_000, 2000, 60_000, 8000, 70_000, 40_000};
        List<MemorySegment> sent = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            boolean heap = sizes[i] > 16 * 1024;
            MemorySegment m = heap ? MemorySegment.ofArray(new byte[sizes[i]]) : arena.allocate(sizes[i]);
            for (long k = 0; k < m.byteSize(); k++) {
                m.set(ValueLayout.JAVA_BYTE, k, (byte) (k * 7 + i * 31));
            }
            sent.add(m);
            assertEquals(0, a.ep.send(m, null, aToB, "send-" + i));
        }
        List<CqEntry> got = drain(sizes.length, sizes.length);
        long at = buf.address();
        for (int i = 0; i < sizes.length; i++) {
            CqEntry e = entryAt(got, at);
            assertEquals(sizes[i], e.len, "message " + i + "'s length");
            assertEquals(-1, sent.get(i).mismatch(buf.asSlice(at - buf.address(), sizes[i])), "message " + i + "'s bytes");
            at += sizes[i];
        }
        for (int i = 0; i < got.size(); i++) {
            boolean last = i == got.size() - 1;
            assertEquals(last, (got.get(i).flags & OpFlags.MULTI_RECV) != 0,
                    "FI_MULTI_RECV on completion " + i + " of " + got.size() + " (only on the last)");
        }
    }

    @Test
    void aBufferCancelledWhileAMessageIsPulledIntoItIsReleasedByThatMessage() {
        MemorySegment buf = arena.allocate(BUFFER);
        assertEquals(0, b.ep.recvmsg(new Msg().set(buf, null, Fabrics.ADDR_UNSPEC, "multi"), OpFlags.MULTI_RECV));
        MemorySegment big = MemorySegment.ofArray(new byte[100_000]);
        big.fill((byte) 0x3C);
        assertEquals(0, a.ep.send(big, null, aToB, "big"));
        // only the receiver progresses: it matches the RTS and asks for chunks the sender does not serve yet
        b.progressFor(100);
        assertEquals(0, b.ep.cancel("multi"));
        CqErrEntry cancelled = new CqErrEntry();
        assertEquals(-Errno.EAVAIL, b.next(new CqEntry(), cancelled, 5000), "fi_cancel's completion");
        assertEquals(Errno.ECANCELED, cancelled.err);
        assertEquals("multi", cancelled.context);
        assertEquals(0, cancelled.flags & OpFlags.MULTI_RECV,
                "the buffer is not released while a message is still landing in it");

        List<CqEntry> got = drain(1, 1);
        CqEntry last = got.get(0);
        assertEquals(100_000, last.len);
        assertEquals(buf.address(), last.buf);
        assertTrue((last.flags & OpFlags.MULTI_RECV) != 0, "the pulled message's completion releases the buffer");
        assertEquals(-1, big.mismatch(buf.asSlice(0, 100_000)));
        b.progressFor(50);
        assertEquals(-Errno.EAGAIN, b.next(new CqEntry(), new CqErrEntry(), 0), "nothing after the release");
    }

    @Test
    void aCopiedMessageThatUsesUpTheBufferLeavesTheReleaseToThePulledOneBeforeIt() {
        MemorySegment buf = arena.allocate(128 * 1024);
        b.ep.setOpt(EndpointOption.MIN_MULTI_RECV, 20_000);
        assertEquals(0, b.ep.recvmsg(new Msg().set(buf, null, Fabrics.ADDR_UNSPEC, "multi"), OpFlags.MULTI_RECV));
        MemorySegment big = MemorySegment.ofArray(new byte[100_000]);
        big.fill((byte) 0x5D);
        MemorySegment small = arena.allocate(12_000);
        small.fill((byte) 0x6E);
        assertEquals(0, a.ep.send(big, null, aToB, "big"));
        assertEquals(0, a.ep.send(small, null, aToB, "small"));
        // the receiver alone: the small message is copied while the big one waits for its chunks, and leaves less
        // than FI_OPT_MIN_MULTI_RECV behind it
        CqEntry first = new CqEntry();
        assertEquals(1, b.next(first, new CqErrEntry(), 5000), "the small message's completion");
        assertEquals(12_000, first.len);
        assertEquals(buf.address() + 100_000, first.buf, "the small message lands after the big one's slice");
        assertEquals(0, first.flags & OpFlags.MULTI_RECV, "the big message is still landing in the buffer");

        CqEntry last = drain(1, 2).get(0);
        assertEquals(100_000, last.len);
        assertEquals(buf.address(), last.buf);
        assertTrue((last.flags & OpFlags.MULTI_RECV) != 0, "the pulled message's completion releases the buffer");
        assertEquals(-1, big.mismatch(buf.asSlice(0, 100_000)));
        assertEquals(-1, small.mismatch(buf.asSlice(100_000, 12_000)));
    }

    @Test
    void oneBufferTakesMorePulledMessagesThanTheEndpointHasReceives() {
        try (ShmNode small = new ShmNode(Progress.MANUAL, 16)) {
            long toSmall = a.insert(small);
            small.insert(a);
            int n = 20;
            int len = 20_000;
            MemorySegment buf = arena.allocate((long) n * len);
            assertEquals(0, small.ep.recvmsg(new Msg().set(buf, null, Fabrics.ADDR_UNSPEC, "multi"), OpFlags.MULTI_RECV));
            MemorySegment[] sent = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                sent[i] = MemorySegment.ofArray(new byte[len]);
                sent[i].fill((byte) (i + 1));
                assertEquals(0, a.ep.send(sent[i], null, toSmall, "send-" + i));
            }
            // the receiver alone matches all twenty RTS: twenty pulls at once, against 16 receives' worth
            small.progressFor(100);
            int received = 0;
            int sendsDone = 0;
            CqEntry[] one = {new CqEntry()};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((received < n || sendsDone < n) && System.nanoTime() < deadline) {
                if (small.cq.read(one, 1) == 1) {
                    received++;
                }
                if (a.cq.read(one, 1) == 1) {
                    sendsDone++;
                }
            }
            assertEquals(n, received, "receive completions");
            assertEquals(n, sendsDone, "send completions");
            for (int i = 0; i < n; i++) {
                assertEquals(-1, sent[i].mismatch(buf.asSlice((long) i * len, len)), "message " + i);
            }
        }
    }

    /** Drives both sides until b has {@code receives} entries of "multi" and a has {@code sends}; returns b's. */
    private List<CqEntry> drain(int receives, int sends) {
        List<CqEntry> got = new ArrayList<>();
        int sendsDone = 0;
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((got.size() < receives || sendsDone < sends) && System.nanoTime() < deadline) {
            int rc = b.cq.read(one, 1);
            if (rc == 1) {
                assertEquals("multi", one[0].context);
                got.add(one[0]);
                one[0] = new CqEntry();
            } else if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                b.cq.readError(err, 0);
                throw new AssertionError("receive error " + err);
            }
            rc = a.cq.read(one, 1);
            if (rc == 1) {
                sendsDone++;
            } else if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                a.cq.readError(err, 0);
                throw new AssertionError("send error " + err);
            }
        }
        assertEquals(receives, got.size(), "receive completions");
        assertEquals(sends, sendsDone, "send completions");
        return got;
    }

    private static CqEntry entryAt(List<CqEntry> entries, long buf) {
        return entries.stream().filter(e -> e.buf == buf).findFirst()
                .orElseThrow(() -> new AssertionError("no completion names address " + buf + ": " + entries));
    }
}
