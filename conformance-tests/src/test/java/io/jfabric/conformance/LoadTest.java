package io.jfabric.conformance;

import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * fabtests rdm_stress (a bounded random mix of message sizes, tagged and untagged, with a window in flight),
 * resmgmt (a full transmit queue answers -FI_EAGAIN; a CQ too small for its completions overruns as
 * docs/differences.md documents or applies backpressure; nothing is corrupted either way) and bw with every
 * byte verified.
 */
@Timeout(90)
class LoadTest {
    static final long T = 20_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    /** Window of messages in flight: at most the queue sizes, at most 32. */
    private static int window(FabricCase c) {
        long tx = FabricCase.unsigned(c.info().txAttr.size);
        long rx = FabricCase.unsigned(c.info().rxAttr.size);
        return (int) Math.max(1, Math.min(32, Math.min(tx, rx)));
    }

    @ForEachFabric
    void stressRandomSizesAndKindsWithAWindowInFlight(FabricCase c) {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        boolean tagged = c.hasCaps(Caps.TAGGED);
        int ops = 600;
        int win = window(c);
        long maxSize = Math.min(c.maxMsgSize(), 128 * 1024);
        Random rnd = new Random(0x5EED);
        long deadline = System.nanoTime() + 60_000_000_000L;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] tx = new MemorySegment[win];
            MemorySegment[] rx = new MemorySegment[win];
            MemoryRegion[] txd = new MemoryRegion[win];
            MemoryRegion[] rxd = new MemoryRegion[win];
            for (int i = 0; i < win; i++) {
                tx[i] = Mem.alloc(arena, maxSize);
                rx[i] = Mem.alloc(arena, maxSize);
                txd[i] = p.a.desc(tx[i]);
                rxd[i] = p.b.desc(rx[i]);
            }
            // ops go in batches of one window: receives first (matching in posting order), then the sends
            int done = 0;
            while (done < ops) {
                assertTrue(System.nanoTime() < deadline, "stress ran out of time after " + done + " ops");
                int batch = Math.min(win, ops - done);
                long[] size = new long[batch];
                boolean[] isTagged = new boolean[batch];
                for (int i = 0; i < batch; i++) {
                    size[i] = rnd.nextInt(4) == 0 ? rnd.nextLong(maxSize + 1) : rnd.nextLong(Math.min(maxSize, 4096) + 1);
                    isTagged[i] = tagged && rnd.nextBoolean();
                    long seed = done + i;
                    MemorySegment t = tx[i].asSlice(0, size[i]);
                    Mem.fill(t, seed);
                    MemorySegment r = rx[i];
                    MemoryRegion rd = rxd[i];
                    if (isTagged[i]) {
                        p.poller.post("fi_trecv", () -> p.b.ep.trecv(r, rd, Fabrics.ADDR_UNSPEC, seed, 0, r));
                    } else {
                        p.poller.post("fi_recv", () -> p.b.ep.recv(r, rd, Fabrics.ADDR_UNSPEC, r));
                    }
                }
                for (int i = 0; i < batch; i++) {
                    MemorySegment t = tx[i].asSlice(0, size[i]);
                    MemoryRegion td = txd[i];
                    long tag = done + i;
                    if (isTagged[i]) {
                        p.poller.post("fi_tsend", () -> p.a.ep.tsend(t, td, p.a.peer, tag, t));
                    } else {
                        p.poller.post("fi_send", () -> p.a.ep.send(t, td, p.a.peer, t));
                    }
                }
                for (int i = 0; i < batch; i++) {
                    CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "receive of op " + (done + i));
                    int slot = indexOf(rx, Mem.postedBuffer(re));
                    assertTrue(slot >= 0 && slot < batch, "completion names a posted receive: " + re);
                    assertEquals(size[slot], re.len, "length of op " + (done + slot));
                    if (isTagged[slot]) {
                        assertEquals(done + slot, re.tag, "tag of op " + (done + slot));
                    }
                    assertEquals(-1, Mem.mismatch(rx[slot].asSlice(0, re.len), done + slot), "payload of op " + (done + slot));
                }
                for (int i = 0; i < batch; i++) {
                    p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "send of op " + (done + i));
                }
                done += batch;
            }
        }
    }

    private static int indexOf(MemorySegment[] segs, MemorySegment s) {
        for (int i = 0; i < segs.length; i++) {
            if (segs[i] == s) {
                return i;
            }
        }
        return -1;
    }

    @ForEachFabric
    void fullTransmitQueueAnswersEagainAndLosesNothing(FabricCase c) {
        Gate.messaging(c);
        long txSize = FabricCase.unsigned(c.info().txAttr.size);
        Gate.require(txSize <= 4096, c, "has tx_size " + txSize + "; the test fills at most 4096 + slack sends");
        EndpointPair p = EndpointPair.open(c, dump);
        int limit = (int) txSize * 4 + 64;
        try (Arena arena = Arena.ofShared()) {
            // one exchange first, so a connection set up on first use (RDM over MSG) is not what answers EAGAIN
            MemorySegment warm = Mem.alloc(arena, 8);
            p.poller.post("warm-up fi_recv", () -> p.b.ep.recv(warm, p.b.desc(warm), Fabrics.ADDR_UNSPEC, "warm"));
            p.poller.post("warm-up fi_send", () -> p.a.ep.send(warm, p.a.desc(warm), p.a.peer, "warm"));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "warm-up send");
            p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "warm-up receive");
            MemorySegment tx = Mem.alloc(arena, 1024);
            // no receive is posted and nothing is read: the queue must fill and say so
            int accepted = 0;
            int rc = 0;
            for (int i = 0; i < limit; i++) {
                tx.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                rc = p.a.ep.send(tx, p.a.desc(tx), p.a.peer, i);
                if (rc != 0) {
                    break;
                }
                accepted++;
                // the payload of a posted send belongs to the provider until completion: use one buffer per send
                tx = Mem.alloc(arena, 1024);
            }
            dump.note("accepted " + accepted + " sends, then " + Errno.name(rc) + " (tx_size " + txSize + ")");
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            int sent = 0;
            if (rc == 0) {
                // every send was accepted: legal only if the queue never held more than tx_size of them, i.e. the
                // rest already completed at the sender (a stream provider hands them to the kernel's socket buffer;
                // fi_endpoint(3): tx size bounds the operations outstanding, completed ones have left the queue)
                long until = System.nanoTime() + 500_000_000L;
                while (System.nanoTime() < until) {
                    int got = p.poller.awaitCq(p.a.txCq, e, err, 0);
                    if (got == 1) {
                        sent++;
                    } else if (got == -Errno.EAVAIL) {
                        fail("send error with nothing received: " + err);
                    }
                }
                dump.note(sent + " of the accepted sends completed at the sender with nothing received");
                assertTrue(accepted - sent <= txSize, "after " + accepted + " sends with nothing read, " + (accepted - sent)
                        + " are outstanding, more than tx_size " + txSize + ", and fi_send never answered -FI_EAGAIN");
            } else {
                assertEquals(-Errno.EAGAIN, rc, "after " + accepted + " sends with nothing read, fi_send must answer "
                        + "-FI_EAGAIN (tx_size " + txSize + "), not " + Errno.name(rc));
            }
            assertTrue(accepted >= 1, "the first send is accepted");
            // now let everything drain: every accepted send arrives once, intact and in order
            MemorySegment rx = Mem.alloc(arena, 1024);
            int received = 0;
            long deadline = System.nanoTime() + T * 1_000_000L;
            boolean posted = false;
            while ((received < accepted || sent < accepted) && System.nanoTime() < deadline) {
                if (!posted && received < accepted) {
                    int r = p.b.ep.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "rx");
                    if (r == 0) {
                        posted = true;
                    } else if (r != -Errno.EAGAIN) {
                        fail("fi_recv returned " + Errno.name(r));
                    }
                }
                int got = p.poller.awaitCq(p.b.rxCq, e, err, 0);
                if (got == 1) {
                    assertEquals(received, rx.get(ValueLayout.JAVA_INT_UNALIGNED, 0), "message order after a full queue");
                    received++;
                    posted = false;
                } else if (got == -Errno.EAVAIL) {
                    fail("receive error after a full queue: " + err);
                }
                got = p.poller.awaitCq(p.a.txCq, e, err, 0);
                if (got == 1) {
                    sent++;
                } else if (got == -Errno.EAVAIL) {
                    fail("send error after a full queue: " + err);
                }
            }
            assertEquals(accepted, received, "every accepted send arrives");
            assertEquals(accepted, sent, "every accepted send completes");
        }
    }

    @ForEachFabric
    void aCqTooSmallOverrunsOrPushesBackAndNothingIsCorrupted(FabricCase c) {
        Gate.messaging(c);
        EndpointPair.Options o = new EndpointPair.Options();
        o.txCqSize = 4;
        EndpointPair p = EndpointPair.open(c, dump, o);
        int n = 32;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] rx = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                MemorySegment r = Mem.alloc(arena, 256);
                rx[i] = r;
                p.poller.post("fi_recv", () -> p.b.ep.recv(r, p.b.desc(r), Fabrics.ADDR_UNSPEC, r));
            }
            int read = 0;
            long lost = 0;
            int eagain = 0;
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            for (int i = 0; i < n; i++) {
                MemorySegment tx = Mem.alloc(arena, 256);
                Mem.fill(tx, 800 + i);
                int rc;
                long deadline = System.nanoTime() + T * 1_000_000L;
                while ((rc = p.a.ep.send(tx, p.a.desc(tx), p.a.peer, "tx")) == -Errno.EAGAIN && System.nanoTime() < deadline) {
                    eagain++;
                    // backpressure: reading the small CQ is what frees room
                    int got = p.poller.awaitCq(p.a.txCq, e, err, 0);
                    if (got == 1) {
                        read++;
                    } else if (got == -Errno.EAVAIL) {
                        lost += overrun(err);
                    }
                    p.b.rxCq.read(Poller.NONE, 0);
                }
                assertEquals(0, rc, "fi_send " + i + " returned " + Errno.name(rc));
                // progress on the receiver only: the sender's CQ is deliberately not read
                p.b.rxCq.read(Poller.NONE, 0);
            }
            for (int i = 0; i < n; i++) {
                CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "receive " + i);
                assertEquals(rx[i], re.context);
                assertEquals(-1, Mem.mismatch(rx[i], 800 + i), "payload " + i + " is intact whatever the sender's CQ did");
            }
            long deadline = System.nanoTime() + T * 1_000_000L;
            while (read + lost < n && System.nanoTime() < deadline) {
                int got = p.poller.awaitCq(p.a.txCq, e, err, 0);
                if (got == 1) {
                    read++;
                } else if (got == -Errno.EAVAIL) {
                    lost += overrun(err);
                }
                p.poller.drive();
            }
            dump.note("read " + read + ", lost to overrun " + lost + ", EAGAIN answers " + eagain);
            System.out.println(c.id() + ": 4-slot CQ, 32 sends: " + read + " completions read, " + lost
                    + " reported lost (FI_EOVERRUN), " + eagain + " -FI_EAGAIN answers");
            assertEquals(n, read + lost, "every send is either read or counted in FI_EOVERRUN's data");
        }
    }

    /** The number of completions an FI_EOVERRUN error entry reports lost; fails on any other error. */
    private static long overrun(CqErrEntry err) {
        assertEquals(Errno.EOVERRUN, err.err, "the only error a too-small CQ may report is FI_EOVERRUN: " + err);
        assertTrue(err.data > 0, "FI_EOVERRUN's data counts the completions lost: " + err);
        return err.data;
    }

    @ForEachFabric
    void bandwidthWithEveryByteVerified(FabricCase c) {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        int win = window(c);
        long size = Math.min(c.maxMsgSize(), 64 * 1024);
        int iterations = 8;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] tx = new MemorySegment[win];
            MemorySegment[] rx = new MemorySegment[win];
            for (int i = 0; i < win; i++) {
                tx[i] = Mem.alloc(arena, size);
                rx[i] = Mem.alloc(arena, size);
            }
            long bytes = 0;
            long t0 = System.nanoTime();
            for (int it = 0; it < iterations; it++) {
                for (int i = 0; i < win; i++) {
                    MemorySegment r = rx[i];
                    Mem.fill(r, (byte) 0);
                    p.poller.post("fi_recv", () -> p.b.ep.recv(r, p.b.desc(r), Fabrics.ADDR_UNSPEC, r));
                }
                for (int i = 0; i < win; i++) {
                    MemorySegment t = tx[i];
                    Mem.fill(t, (long) it * win + i);
                    p.poller.post("fi_send", () -> p.a.ep.send(t, p.a.desc(t), p.a.peer, t));
                }
                for (int i = 0; i < win; i++) {
                    CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "bw receive");
                    int slot = indexOf(rx, Mem.postedBuffer(re));
                    assertTrue(slot >= 0, "completion of a posted receive: " + re);
                    assertEquals(size, re.len);
                    assertEquals(-1, Mem.mismatch(rx[slot], (long) it * win + slot), "payload of message " + (it * win + slot));
                    bytes += size;
                }
                for (int i = 0; i < win; i++) {
                    p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "bw send");
                }
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            System.out.printf("%s: bw %d x %d B verified, %.1f MB/s (includes pattern fill and check)%n", c.id(),
                    (long) iterations * win, size, bytes / secs / 1e6);
        }
    }
}
