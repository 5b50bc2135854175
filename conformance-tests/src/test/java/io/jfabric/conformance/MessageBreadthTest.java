package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.Mode;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.TaggedMsg;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fabtests cq_data (RMA write with remote CQ data), inject_test (inject at and past inject_size, tagged
 * inject), multi_recv, recv_cancel (tagged), rdm_tagged_peek (FI_PEEK, FI_CLAIM, FI_DISCARD) and
 * unexpected_msg (messages that arrive before their receives).
 */
@Timeout(60)
class MessageBreadthTest {
    static final long T = 10_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void writedataDeliversRemoteCqDataAtTheTarget(FabricCase c) {
        Gate.rma(c);
        long dataSize = c.info().domainAttr.cqDataSize;
        Gate.require(dataSize > 0, c, "offers no remote CQ data (cq_data_size 0)");
        EndpointPair p = EndpointPair.open(c, dump);
        long expected = dataSize >= 8 ? 0x0A0B0C0D0E0F1011L : 0x0A0B0C0D0E0F1011L & ((1L << (dataSize * 8)) - 1);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, 512);
            MemoryRegion mr = p.b.register(target, Access.REMOTE_WRITE);
            MemorySegment src = Mem.alloc(arena, 512);
            Mem.fill(src, 71);
            long mode = p.b.info.mode | (p.b.info.rxAttr == null ? 0 : p.b.info.rxAttr.mode); // fi_getinfo(3): either
            if ((mode & Mode.RX_CQ_DATA) != 0) {
                MemorySegment dummy = Mem.alloc(arena, 1);
                p.poller.post("fi_recv for FI_RX_CQ_DATA", () -> p.b.ep.recv(dummy, p.b.desc(dummy), Fabrics.ADDR_UNSPEC, "cq-data-rx"));
            }
            p.poller.post("fi_writedata", () -> p.a.ep.writedata(src, p.a.desc(src), expected, p.a.peer,
                    p.b.remoteAddr(mr, 0), mr.key(), "wd"));
            assertSame("wd", p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_writedata").context);
            CqEntry te = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "target completion of fi_writedata");
            assertTrue((te.flags & OpFlags.REMOTE_CQ_DATA) != 0, "FI_REMOTE_CQ_DATA: " + te);
            assertEquals(expected, te.data, "remote CQ data at the target");
            assertEquals(-1, Mem.mismatch(target, 71), "the written data is in place when the target completion is read");
        }
    }

    @ForEachFabric
    void injectOfExactlyInjectSizeArrivesAndLargerIsRefused(FabricCase c) {
        Gate.messaging(c);
        long inject = c.injectSize();
        Gate.require(inject > 0, c, "offers no inject (inject_size 0)");
        Gate.require(inject <= 1 << 20, c, "has inject_size " + inject + "; the test sends at most 1 MiB");
        EndpointPair p = EndpointPair.open(c, dump);
        int size = (int) inject;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tx = Mem.alloc(arena, size + 1);
            MemorySegment rx = Mem.alloc(arena, size + 1);
            Mem.fill(tx, 91);
            p.poller.post("fi_recv", () -> p.b.ep.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "rx"));
            p.poller.post("fi_inject of inject_size", () -> p.a.ep.inject(tx.asSlice(0, size), p.a.peer));
            CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "receive of an inject_size message");
            assertEquals(size, re.len);
            assertEquals(-1, rx.asSlice(0, size).mismatch(tx.asSlice(0, size)), "payload");
            int rc = p.a.ep.inject(tx, p.a.peer);
            assertTrue(rc < 0 && rc != -Errno.EAGAIN, "fi_inject of inject_size + 1 bytes returned " + Errno.name(rc)
                    + "; fi_msg(3) limits inject to inject_size");
            p.poller.expectQuiet(p.b.rxCq, 200, "nothing of the refused inject arrives");
            p.poller.expectQuiet(p.a.txCq, 0, "fi_inject generates no completion");
        }
    }

    @ForEachFabric
    void taggedInjectAndInjectdataCarryTagAndData(FabricCase c) {
        Gate.messaging(c);
        Gate.require(c.hasCaps(Caps.TAGGED), c, "lacks FI_TAGGED");
        Gate.require(c.injectSize() >= 16, c, "inject_size below 16 B");
        Gate.require(c.info().domainAttr.cqDataSize >= 4, c, "cq_data_size below 4 B");
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tx = Mem.alloc(arena, 16);
            MemorySegment r1 = Mem.alloc(arena, 16);
            MemorySegment r2 = Mem.alloc(arena, 16);
            Mem.fill(tx, 5);
            p.poller.post("fi_trecv", () -> p.b.ep.trecv(r1, p.b.desc(r1), Fabrics.ADDR_UNSPEC, 0x51, 0, "t1"));
            p.poller.post("fi_trecv", () -> p.b.ep.trecv(r2, p.b.desc(r2), Fabrics.ADDR_UNSPEC, 0x52, 0, "t2"));
            p.poller.post("fi_tinject", () -> p.a.ep.tinject(tx, p.a.peer, 0x52));
            p.poller.post("fi_tinjectdata", () -> p.a.ep.tinjectdata(tx, 0xBEEF, p.a.peer, 0x51));
            CqEntry e1 = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "first tagged inject");
            CqEntry e2 = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "second tagged inject");
            CqEntry byTag2 = "t2".equals(e1.context) ? e1 : e2;
            CqEntry byTag1 = byTag2 == e1 ? e2 : e1;
            assertEquals("t2", byTag2.context);
            assertEquals(0x52, byTag2.tag);
            assertEquals("t1", byTag1.context);
            assertEquals(0x51, byTag1.tag);
            assertEquals(0xBEEF, byTag1.data, "fi_tinjectdata's data");
            assertTrue((byTag1.flags & OpFlags.REMOTE_CQ_DATA) != 0);
            assertEquals(-1, Mem.mismatch(r1, 5));
            assertEquals(-1, Mem.mismatch(r2, 5));
            p.poller.expectQuiet(p.a.txCq, 100, "injects generate no completion");
        }
    }

    @ForEachFabric
    void multiRecvPacksMessagesIntoOneBufferAndReleasesIt(FabricCase c) {
        Gate.messaging(c);
        Gate.require(c.hasCaps(Caps.MULTI_RECV), c, "lacks FI_MULTI_RECV");
        EndpointPair p = EndpointPair.open(c, dump);
        int msg = 512;
        int count = 8;
        try {
            p.b.ep.setOpt(EndpointOption.MIN_MULTI_RECV, msg);
        } catch (io.jfabric.FabricException e) {
            Gate.require(false, c, "refuses FI_OPT_MIN_MULTI_RECV: " + e.getMessage());
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment big = Mem.alloc(arena, (long) msg * count);
            Msg m = new Msg().set(big, p.b.desc(big), Fabrics.ADDR_UNSPEC, "multi");
            p.poller.post("fi_recvmsg(FI_MULTI_RECV)", () -> p.b.ep.recvmsg(m, OpFlags.MULTI_RECV));
            MemorySegment tx = Mem.alloc(arena, msg);
            long seen = 0;
            boolean released = false;
            for (int i = 0; i < count; i++) {
                Mem.fill(tx, 200 + i);
                p.poller.post("fi_send " + i, () -> p.a.ep.send(tx, p.a.desc(tx), p.a.peer, "tx"));
                p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "send " + i);
                CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "multi-recv completion " + i);
                assertSame("multi", re.context, "every piece carries the multi-recv buffer's context");
                assertEquals(msg, re.len);
                long off = re.buf - big.address();
                assertTrue(off >= 0 && off + msg <= big.byteSize(), "message " + i + " lands inside the buffer: " + re);
                assertTrue(off >= seen, "messages fill the buffer in order, without overlap: offset " + off);
                seen = off + msg;
                assertEquals(-1, Mem.mismatch(big.asSlice(off, msg), 200 + i), "payload " + i + " at offset " + off);
                if ((re.flags & OpFlags.MULTI_RECV) != 0) {
                    released = true;
                    assertEquals(count - 1, i, "FI_MULTI_RECV (buffer released) only when less than min_multi_recv is left");
                }
            }
            if (!released) {
                // the release may come as its own completion with no data
                CqEntry rel = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "release of the multi-recv buffer");
                assertTrue((rel.flags & OpFlags.MULTI_RECV) != 0, "FI_MULTI_RECV marks the buffer's release: " + rel);
                assertSame("multi", rel.context);
            }
        }
    }

    /**
     * Large messages (past every provider's eager or bounce size, so moved by rendezvous, CMA or pulling) among
     * small ones, all sent before the receiver reads: each gets a slice of its own inside the buffer, the bytes
     * arrive intact, and the one completion with FI_MULTI_RECV comes after every other.
     */
    @ForEachFabric
    void multiRecvTakesLargeMessagesAmongSmallOnes(FabricCase c) {
        Gate.messaging(c);
        Gate.require(c.hasCaps(Caps.MULTI_RECV), c, "lacks FI_MULTI_RECV");
        int[] sizes = {64, 100_000, 64, 100_000, 2000};
        long total = java.util.Arrays.stream(sizes).asLongStream().sum();
        Gate.require(c.maxMsgSize() >= 100_000, c, "has max_msg_size " + c.maxMsgSize());
        EndpointPair p = EndpointPair.open(c, dump);
        try {
            p.b.ep.setOpt(EndpointOption.MIN_MULTI_RECV, 1024);
        } catch (io.jfabric.FabricException e) {
            Gate.require(false, c, "refuses FI_OPT_MIN_MULTI_RECV: " + e.getMessage());
        }
        try (Arena arena = Arena.ofShared()) {
            // 512 bytes to spare once all five are in: less than FI_OPT_MIN_MULTI_RECV, so the last releases it
            MemorySegment big = Mem.alloc(arena, total + 512);
            Msg m = new Msg().set(big, p.b.desc(big), Fabrics.ADDR_UNSPEC, "multi");
            p.poller.post("fi_recvmsg(FI_MULTI_RECV)", () -> p.b.ep.recvmsg(m, OpFlags.MULTI_RECV));
            MemorySegment[] tx = new MemorySegment[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                MemorySegment t = Mem.alloc(arena, sizes[i]);
                Mem.fill(t, 300 + i);
                tx[i] = t;
                p.poller.post("fi_send " + i, () -> p.a.ep.send(t, p.a.desc(t), p.a.peer, "tx"));
            }
            boolean[] matched = new boolean[sizes.length];
            java.util.TreeMap<Long, Long> slices = new java.util.TreeMap<>();
            boolean released = false;
            int sends = 0;
            while (slices.size() < sizes.length || !released) {
                CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "multi-recv completion "
                        + slices.size() + (released ? " (after the release)" : ""));
                assertSame("multi", re.context, "every piece carries the multi-recv buffer's context");
                assertTrue(!released, "nothing completes in the buffer after FI_MULTI_RECV: " + re);
                released = (re.flags & OpFlags.MULTI_RECV) != 0;
                if (re.len == 0 && released) {
                    continue; // the release as a completion of its own
                }
                long off = re.buf - big.address();
                assertTrue(off >= 0 && off + re.len <= big.byteSize(), "a message lands inside the buffer: " + re);
                slices.put(off, re.len);
                int which = -1;
                for (int i = 0; i < sizes.length && which < 0; i++) {
                    if (!matched[i] && sizes[i] == re.len && Mem.mismatch(big.asSlice(off, re.len), 300 + i) == -1) {
                        which = i;
                    }
                }
                assertTrue(which >= 0, "the bytes at offset " + off + " (" + re.len + ") are one message's, intact");
                matched[which] = true;
            }
            long end = 0;
            for (var e : slices.entrySet()) {
                assertTrue(e.getKey() >= end, "slices do not overlap: " + slices);
                end = e.getKey() + e.getValue();
            }
            for (int i = 0; i < sizes.length; i++) {
                p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "send " + i);
                sends++;
            }
            assertEquals(sizes.length, sends);
        }
    }

    @ForEachFabric
    void cancelledTaggedReceiveCompletesWithEcanceledAndTheNextOneMatches(FabricCase c) {
        Gate.messaging(c);
        Gate.require(c.hasCaps(Caps.TAGGED), c, "lacks FI_TAGGED");
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment doomed = Mem.alloc(arena, 64);
            MemorySegment kept = Mem.alloc(arena, 64);
            MemorySegment tx = Mem.alloc(arena, 64);
            Mem.fill(doomed, (byte) 0x33);
            Mem.fill(tx, 14);
            p.poller.post("fi_trecv doomed", () -> p.b.ep.trecv(doomed, p.b.desc(doomed), Fabrics.ADDR_UNSPEC, 0x77, 0, "doomed"));
            p.poller.post("fi_trecv kept", () -> p.b.ep.trecv(kept, p.b.desc(kept), Fabrics.ADDR_UNSPEC, 0x77, 0, "kept"));
            assertEquals(0, p.b.ep.cancel("doomed"), "fi_cancel of a posted tagged receive");
            CqErrEntry err = p.poller.expectError(p.b.rxCq, T, "cancelled tagged receive");
            assertEquals(Errno.ECANCELED, err.err);
            assertSame("doomed", err.context);
            assertEquals(0x77, err.tag, "the cancelled entry reports its tag");
            p.poller.post("fi_tsend", () -> p.a.ep.tsend(tx, p.a.desc(tx), p.a.peer, 0x77, "tx"));
            CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "tagged receive after the cancel");
            assertSame("kept", re.context);
            assertEquals(-1, Mem.mismatch(kept, 14));
            assertEquals(-1, Mem.mismatch(doomed, (byte) 0x33), "the cancelled buffer is untouched");
            int again = p.b.ep.cancel("doomed");
            assertTrue(again == 0 || again == -Errno.ENOENT, "cancelling a finished receive again returned "
                    + Errno.name(again) + "; fi_cancel(3) allows 0 (no-op) or -FI_ENOENT");
            p.poller.expectQuiet(p.b.rxCq, 50, "a second cancel produces no second completion");
        }
    }

    private static final Set<Integer> UNSUPPORTED = Set.of(Errno.ENOSYS, Errno.EOPNOTSUPP, Errno.EBADFLAGS);

    /** Posts a tagged peek and waits for its answer: 1 (found), -ENOMSG (not found) or an assertion failure. */
    private static int peek(EndpointPair p, FabricCase c, TaggedMsg m, long flags, CqEntry out) {
        int rc = p.b.ep.trecvmsg(m, OpFlags.PEEK | flags);
        Gate.require(!UNSUPPORTED.contains(-rc), c, "does not offer FI_PEEK on fi_trecvmsg (" + Errno.name(rc) + ")");
        assertEquals(0, rc, "fi_trecvmsg(FI_PEEK) returned " + Errno.name(rc));
        CqErrEntry err = new CqErrEntry();
        int got = p.poller.awaitCq(p.b.rxCq, out, err, T);
        assertTrue(got != Poller.TIMED_OUT, "FI_PEEK never completed");
        if (got == -Errno.EAVAIL) {
            assertEquals(Errno.ENOMSG, err.err, "a peek that finds nothing completes with FI_ENOMSG: " + err);
            assertSame(m.context, err.context);
            return -Errno.ENOMSG;
        }
        return 1;
    }

    @ForEachFabric
    void taggedPeekClaimAndDiscard(FabricCase c) {
        Gate.messaging(c);
        Gate.require(c.hasCaps(Caps.TAGGED), c, "lacks FI_TAGGED");
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tx = Mem.alloc(arena, 100);
            MemorySegment rx = Mem.alloc(arena, 100);
            TaggedMsg m = new TaggedMsg(1);
            m.iov[0] = rx;
            m.desc[0] = p.b.desc(rx);
            m.iovCount = 1;
            m.addr = Fabrics.ADDR_UNSPEC;
            m.ignore = 0;

            m.tag = 0x1234;
            m.context = "peek-nothing";
            assertEquals(-Errno.ENOMSG, peek(p, c, m, 0, new CqEntry()), "peek before anything was sent");

            Mem.fill(tx, 31);
            p.poller.post("fi_tsend 0x1234", () -> p.a.ep.tsend(tx, p.a.desc(tx), p.a.peer, 0x1234, "s1"));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "tsend 0x1234");
            CqEntry found = new CqEntry();
            m.context = "peek";
            long deadline = System.nanoTime() + T * 1_000_000L;
            while (peek(p, c, m, 0, found) == -Errno.ENOMSG && System.nanoTime() < deadline) {
                p.poller.drive();
            }
            assertSame("peek", found.context, "the peek found the message");
            assertEquals(0x1234, found.tag);
            assertEquals(100, found.len, "FI_PEEK reports the message's length");

            Object claimCtx = new Object();
            m.context = claimCtx;
            assertEquals(1, peek(p, c, m, OpFlags.CLAIM, new CqEntry()), "FI_PEEK | FI_CLAIM finds it");
            m.context = claimCtx;
            assertEquals(0, p.b.ep.trecvmsg(m, OpFlags.CLAIM), "fi_trecvmsg(FI_CLAIM) takes the claimed message");
            CqEntry got = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "receive of the claimed message");
            assertSame(claimCtx, got.context);
            assertEquals(-1, Mem.mismatch(rx, 31), "claimed payload");
            m.context = "peek-after-claim";
            assertEquals(-Errno.ENOMSG, peek(p, c, m, 0, new CqEntry()), "a claimed message is gone");

            p.poller.post("fi_tsend 0x99", () -> p.a.ep.tsend(tx, p.a.desc(tx), p.a.peer, 0x99, "s2"));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "tsend 0x99");
            m.tag = 0x99;
            m.context = "discard";
            deadline = System.nanoTime() + T * 1_000_000L;
            int rc;
            while ((rc = peek(p, c, m, OpFlags.DISCARD, new CqEntry())) == -Errno.ENOMSG && System.nanoTime() < deadline) {
                p.poller.drive();
            }
            assertEquals(1, rc, "FI_PEEK | FI_DISCARD finds and drops the message");
            m.context = "peek-after-discard";
            assertEquals(-Errno.ENOMSG, peek(p, c, m, 0, new CqEntry()), "a discarded message is gone");
        }
    }

    @ForEachFabric
    void unexpectedMessagesWaitForTheirReceivesInOrder(FabricCase c) {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        long[] sizes = {0, 1, 63, 64, 1000, 4096, 9000, 65536};
        int n = 16;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] tx = new MemorySegment[n];
            MemorySegment[] rx = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                long size = Math.min(sizes[i % sizes.length], c.maxMsgSize());
                tx[i] = Mem.alloc(arena, size);
                rx[i] = Mem.alloc(arena, 65536);
                Mem.fill(tx[i], 300 + i);
                MemorySegment t = tx[i];
                p.poller.post("fi_send " + i, () -> p.a.ep.send(t, p.a.desc(t), p.a.peer, t));
            }
            // let the messages arrive with no receive posted
            long until = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < until) {
                p.poller.drive();
            }
            for (int i = 0; i < n; i++) {
                MemorySegment r = rx[i];
                p.poller.post("fi_recv " + i, () -> p.b.ep.recv(r, p.b.desc(r), Fabrics.ADDR_UNSPEC, r));
            }
            // matching is in order (FI_ORDER_SAS): receive i takes message i; completions may come in another
            // order (a large message finishes after the small ones behind it)
            boolean[] done = new boolean[n];
            for (int k = 0; k < n; k++) {
                CqEntry re = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "unexpected message " + k);
                int i = java.util.Arrays.asList(rx).indexOf(re.context);
                assertTrue(i >= 0 && !done[i], "completion of a posted receive, once: " + re);
                done[i] = true;
                assertEquals(tx[i].byteSize(), re.len, "receive " + i + " got message " + i + "'s length");
                assertEquals(-1, Mem.mismatch(rx[i].asSlice(0, re.len), 300 + i), "receive " + i + " got message " + i);
            }
            for (int i = 0; i < n; i++) {
                p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "send " + i);
            }
        }
    }
}
