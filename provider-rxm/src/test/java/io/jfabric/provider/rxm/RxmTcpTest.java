package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.*;

/** tcp;ofi_rxm between two endpoints in one JVM: every protocol, both queues, data verified. */
@Timeout(60)
class RxmTcpTest extends RxmPairFixture {
    @ParameterizedTest
    @ValueSource(longs = {0, 1, 64, 16384, 16385, 100_000, 131072, 131073, 1 << 20})
    void taggedSendRecvEverySize(long size) {
        MemorySegment src = RxmNode.pattern(arena, size, 7);
        MemorySegment dst = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
        Object rctx = new Object();
        Object sctx = new Object();
        assertEquals(0, b.ep.trecv(dst, null, bToA, 0x4d2, 0, rctx));
        assertEquals(0, RxmNode.retry(() -> a.ep.tsend(src, null, aToB, 0x4d2, sctx), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.completionFor(rctx) != null && a.completionFor(sctx) != null, 20_000, a, b),
                () -> "no completion; a=" + a + " b=" + b + " errors " + a.errors + b.errors);
        CqEntry rc = b.completionFor(rctx);
        assertEquals(size, rc.len);
        assertEquals(0x4d2, rc.tag);
        assertTrue((rc.flags & OpFlags.TAGGED) != 0 && (rc.flags & OpFlags.RECV) != 0, OpFlags.toString(rc.flags));
        assertEquals(bToA, rc.srcAddr, "FI_SOURCE names the sender");
        assertEquals(-1, RxmNode.firstMismatch(src, dst));
        CqEntry sc = a.completionFor(sctx);
        assertEquals(OpFlags.SEND | OpFlags.TAGGED, sc.flags);
    }

    @ParameterizedTest
    @ValueSource(longs = {64, 16384, 50_000, 200_000})
    void unexpectedMessagesWaitForTheirReceive(long size) {
        MemorySegment src1 = RxmNode.pattern(arena, size, 1);
        MemorySegment src2 = RxmNode.pattern(arena, size, 2);
        Object s1 = new Object();
        Object s2 = new Object();
        assertEquals(0, RxmNode.retry(() -> a.ep.send(src1, null, aToB, s1), 10_000, a, b));
        assertEquals(0, RxmNode.retry(() -> a.ep.tsend(src2, null, aToB, 99, s2), 10_000, a, b));
        // let them arrive with nothing posted
        RxmNode.await(() -> size > 131072 || a.completionFor(s2) != null, 5_000, a, b);
        MemorySegment d2 = arena.allocate(size, 64);
        MemorySegment d1 = arena.allocate(size, 64);
        Object r2 = new Object();
        Object r1 = new Object();
        assertEquals(0, b.ep.trecv(d2, null, bToA, 99, 0, r2));
        assertEquals(0, b.ep.recv(d1, null, bToA, r1));
        assertTrue(RxmNode.await(() -> b.completionFor(r1) != null && b.completionFor(r2) != null
                && a.completionFor(s1) != null && a.completionFor(s2) != null, 20_000, a, b), () -> a + "\n" + b
                + a.errors + b.errors);
        assertEquals(-1, src1.mismatch(d1));
        assertEquals(-1, src2.mismatch(d2));
        assertEquals(OpFlags.RECV | OpFlags.MSG, b.completionFor(r1).flags);
    }

    @Test
    void rendezvousOf64MiBIsVerified() {
        long size = 64L << 20;
        MemorySegment src = RxmNode.pattern(arena, size, 3);
        MemorySegment dst = arena.allocate(size, 4096);
        Object r = new Object();
        Object s = new Object();
        assertEquals(0, b.ep.trecv(dst, null, bToA, 5, 0, r));
        assertEquals(0, RxmNode.retry(() -> a.ep.tsend(src, null, aToB, 5, s), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.completionFor(r) != null && a.completionFor(s) != null, 50_000, a, b),
                () -> a + "\n" + b + a.errors + b.errors);
        assertEquals(size, b.completionFor(r).len);
        assertEquals(-1, src.mismatch(dst));
    }

    @Test
    void messagesArriveInOrderAndTagsMatchWithIgnoreBits() {
        int n = 50;
        MemorySegment[] dst = new MemorySegment[n];
        Object[] rctx = new Object[n];
        for (int i = 0; i < n; i++) {
            dst[i] = arena.allocate(8);
            rctx[i] = "r" + i;
            // matches any tag 0x100..0x1ff
            assertEquals(0, b.ep.trecv(dst[i], null, -1L, 0x100, 0xff, rctx[i]));
        }
        for (int i = 0; i < n; i++) {
            MemorySegment src = arena.allocate(8);
            src.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, i);
            long tag = 0x100 + i;
            assertEquals(0, RxmNode.retry(() -> a.ep.tsend(src, null, aToB, tag, null), 10_000, a, b));
        }
        assertTrue(RxmNode.await(() -> b.completions.size() >= n, 20_000, a, b));
        for (int i = 0; i < n; i++) {
            assertEquals(i, dst[i].get(java.lang.foreign.ValueLayout.JAVA_LONG, 0), "posting order = arrival order");
            assertEquals(0x100 + i, b.completionFor(rctx[i]).tag);
        }
    }

    @Test
    void truncationIsReportedWithOlen() {
        MemorySegment src = RxmNode.pattern(arena, 1000, 4);
        MemorySegment dst = arena.allocate(100);
        Object r = new Object();
        assertEquals(0, b.ep.recv(dst, null, bToA, r));
        assertEquals(0, RxmNode.retry(() -> a.ep.send(src, null, aToB, null), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.errorFor(r) != null, 10_000, a, b));
        assertEquals(io.jfabric.Errno.ETRUNC, b.errorFor(r).err);
        assertEquals(900, b.errorFor(r).olen);
        assertEquals(-1, src.asSlice(0, 100).mismatch(dst));
    }

    @Test
    void remoteCqDataTravelsWithTheMessage() {
        MemorySegment src = RxmNode.pattern(arena, 40, 5);
        MemorySegment dst = arena.allocate(40);
        Object r = new Object();
        assertEquals(0, b.ep.trecv(dst, null, bToA, 7, 0, r));
        assertEquals(0, RxmNode.retry(() -> a.ep.tsenddata(src, null, 0xfeedL, aToB, 7, null), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.completionFor(r) != null, 10_000, a, b));
        CqEntry c = b.completionFor(r);
        assertTrue((c.flags & OpFlags.REMOTE_CQ_DATA) != 0);
        assertEquals(0xfeedL, c.data);
    }

    @Test
    void peekClaimAndDiscard() {
        MemorySegment m1 = RxmNode.pattern(arena, 32, 1);
        MemorySegment m2 = RxmNode.pattern(arena, 32, 2);
        io.jfabric.TaggedMsg msg = new io.jfabric.TaggedMsg();
        Object peekNone = "peek-none";
        msg.set(arena.allocate(32), null, -1L, peekNone);
        msg.tag = 11;
        msg.ignore = 0;
        assertEquals(0, b.ep.trecvmsg(msg, OpFlags.PEEK));
        assertTrue(RxmNode.await(() -> b.errorFor(peekNone) != null, 5_000, b));
        assertEquals(io.jfabric.Errno.ENOMSG, b.errorFor(peekNone).err);

        assertEquals(0, RxmNode.retry(() -> a.ep.tsend(m1, null, aToB, 11, null), 10_000, a, b));
        assertEquals(0, RxmNode.retry(() -> a.ep.tsend(m2, null, aToB, 12, null), 10_000, a, b));
        Object claim = "claim";
        msg.context = claim;
        assertTrue(RxmNode.await(() -> {
            b.completions.removeIf(c -> c.context == claim);
            b.errors.removeIf(c -> c.context == claim);
            b.ep.trecvmsg(msg, OpFlags.PEEK | OpFlags.CLAIM);
            b.poll();
            return b.completionFor(claim) != null;
        }, 10_000, a, b));
        assertEquals(32, b.completionFor(claim).len);
        // a plain receive for tag 11 must not take the claimed message
        MemorySegment other = arena.allocate(32);
        Object plain = "plain";
        assertEquals(0, b.ep.trecv(other, null, -1L, 11, 0, plain));
        b.completions.clear();
        MemorySegment into = arena.allocate(32);
        msg.set(into, null, -1L, claim);
        assertEquals(0, b.ep.trecvmsg(msg, OpFlags.CLAIM));
        assertTrue(RxmNode.await(() -> b.completionFor(claim) != null, 5_000, a, b));
        assertEquals(-1, m1.mismatch(into));
        assertNull(b.completionFor(plain));

        Object disc = "discard";
        msg.set(arena.allocate(32), null, -1L, disc);
        msg.tag = 12;
        assertTrue(RxmNode.await(() -> {
            b.completions.removeIf(c -> c.context == disc);
            b.errors.removeIf(c -> c.context == disc);
            b.ep.trecvmsg(msg, OpFlags.PEEK | OpFlags.DISCARD);
            b.poll();
            return b.completionFor(disc) != null;
        }, 10_000, a, b));
        // the discarded message is gone: a peek for it finds nothing
        Object again = "again";
        msg.context = again;
        assertEquals(0, b.ep.trecvmsg(msg, OpFlags.PEEK));
        assertTrue(RxmNode.await(() -> b.errorFor(again) != null, 5_000, b));
        assertEquals(0, b.ep.cancel(plain));
    }

    @Test
    void multiRecvBufferTakesSeveralMessagesAndIsReleasedOnce() {
        b.ep.setOpt(io.jfabric.EndpointOption.MIN_MULTI_RECV, 100);
        MemorySegment buf = arena.allocate(1000);
        io.jfabric.Msg m = new io.jfabric.Msg();
        Object ctx = "multi";
        m.set(buf, null, -1L, ctx);
        assertEquals(0, b.ep.recvmsg(m, OpFlags.MULTI_RECV));
        for (int i = 0; i < 4; i++) {
            MemorySegment s = RxmNode.pattern(arena, 300, i);
            assertEquals(0, RxmNode.retry(() -> a.ep.send(s, null, aToB, null), 10_000, a, b));
        }
        // 3 x 300 fit; the 4th leaves < 100 bytes... 1000 - 900 = 100 is not < 100, so 4th takes the last 100 (truncated)
        assertTrue(RxmNode.await(() -> b.completions.size() + b.errors.size() >= 4, 10_000, a, b),
                () -> b.completions + " " + b.errors);
        long released = b.completions.stream().filter(c -> (c.flags & OpFlags.MULTI_RECV) != 0).count()
                + b.errors.stream().filter(c -> (c.flags & OpFlags.MULTI_RECV) != 0).count();
        assertEquals(1, released, "exactly one completion releases the buffer");
        CqEntry first = b.completions.get(0);
        assertEquals(300, first.len);
        assertEquals(buf.address(), first.buf);
        assertEquals(buf.address() + 300, b.completions.get(1).buf);
        assertEquals(-1, RxmNode.pattern(arena, 300, 0).mismatch(buf.asSlice(0, 300)));
    }

    @Test
    void cancelCompletesAPostedReceiveWithEcanceled() {
        Object r = "cancel-me";
        assertEquals(0, b.ep.trecv(arena.allocate(8), null, -1L, 1, 0, r));
        assertEquals(0, b.ep.cancel(r));
        assertEquals(-io.jfabric.Errno.ENOENT, b.ep.cancel(r));
        assertTrue(RxmNode.await(() -> b.errorFor(r) != null, 5_000, b));
        assertEquals(io.jfabric.Errno.ECANCELED, b.errorFor(r).err);
    }

    @Test
    void rmaWriteAndReadThroughTheCore() {
        MemorySegment target = arena.allocate(4096);
        io.jfabric.MemoryRegion mr = b.domain.registerMemory(target, io.jfabric.Access.REMOTE_READ
                | io.jfabric.Access.REMOTE_WRITE, 0x1234);
        try {
            MemorySegment src = RxmNode.pattern(arena, 4096, 9);
            Object w = "write";
            assertEquals(0, RxmNode.retry(() -> a.ep.write(src, null, aToB, 0, 0x1234, w), 10_000, a, b));
            assertTrue(RxmNode.await(() -> a.completionFor(w) != null, 10_000, a, b), () -> a.errors.toString());
            assertEquals(OpFlags.RMA | OpFlags.WRITE, a.completionFor(w).flags);
            assertEquals(-1, src.mismatch(target));
            MemorySegment back = arena.allocate(4096);
            Object r = "read";
            assertEquals(0, RxmNode.retry(() -> a.ep.read(back, null, aToB, 0, 0x1234, r), 10_000, a, b));
            assertTrue(RxmNode.await(() -> a.completionFor(r) != null, 10_000, a, b));
            assertEquals(-1, src.mismatch(back));
        } finally {
            mr.close();
        }
    }

    @Test
    void writedataRaisesARemoteCqDataCompletionAtTheTarget() {
        MemorySegment target = arena.allocate(4096);
        io.jfabric.MemoryRegion mr = b.domain.registerMemory(target, io.jfabric.Access.REMOTE_WRITE, 0x4321);
        try {
            // a posted receive must stay posted: remote CQ data consumes none
            MemorySegment rbuf = arena.allocate(64);
            Object rctx = "recv";
            assertEquals(0, b.ep.recv(rbuf, null, bToA, rctx));
            MemorySegment src = RxmNode.pattern(arena, 4096, 5);
            Object w = "writedata";
            assertEquals(0, RxmNode.retry(() -> a.ep.writedata(src, null, 0xabcdL, aToB, 0, 0x4321, w), 10_000, a, b));
            assertTrue(RxmNode.await(() -> a.completionFor(w) != null
                    && b.completions.stream().anyMatch(c -> (c.flags & OpFlags.REMOTE_CQ_DATA) != 0), 10_000, a, b),
                    () -> "no writedata completions; a=" + a + " b=" + b + " errors " + a.errors + b.errors);
            CqEntry rc = b.completions.stream().filter(c -> (c.flags & OpFlags.REMOTE_CQ_DATA) != 0).findFirst()
                    .orElseThrow();
            assertEquals(0xabcdL, rc.data);
            assertEquals(OpFlags.RMA | OpFlags.REMOTE_WRITE | OpFlags.REMOTE_CQ_DATA, rc.flags, OpFlags.toString(rc.flags));
            assertEquals(4096, rc.len);
            assertEquals(-1, src.mismatch(target));
            assertNull(b.completionFor(rctx), "the posted receive was consumed by a remote write");
            MemorySegment msg = RxmNode.pattern(arena, 64, 6);
            Object s = "send";
            assertEquals(0, RxmNode.retry(() -> a.ep.send(msg, null, aToB, s), 10_000, a, b));
            assertTrue(RxmNode.await(() -> b.completionFor(rctx) != null, 10_000, a, b));
            assertEquals(-1, msg.mismatch(rbuf));
        } finally {
            mr.close();
        }
    }

    @Test
    void writeRendezvousVariantMovesLargeMessages() {
        System.setProperty("jfabric.ofi_rxm.use_rndv_write", "1");
        try (RxmNode w1 = new RxmNode(); RxmNode w2 = new RxmNode()) {
            assertTrue(w1.ep.toString().contains("rndv=write"), w1.ep.toString());
            long to2 = w1.insert(w2.name());
            long to1 = w2.insert(w1.name());
            long size = 3L << 20;
            MemorySegment src = RxmNode.pattern(arena, size, 6);
            MemorySegment dst = arena.allocate(size, 4096);
            Object r = "wr";
            Object s = "ws";
            assertEquals(0, w2.ep.trecv(dst, null, to1, 8, 0, r));
            assertEquals(0, RxmNode.retry(() -> w1.ep.tsend(src, null, to2, 8, s), 10_000, w1, w2));
            assertTrue(RxmNode.await(() -> w2.completionFor(r) != null && w1.completionFor(s) != null, 30_000, w1,
                    w2), () -> w1 + "\n" + w2 + w1.errors + w2.errors);
            assertEquals(size, w2.completionFor(r).len);
            assertEquals(-1, src.mismatch(dst));
        } finally {
            System.clearProperty("jfabric.ofi_rxm.use_rndv_write");
        }
    }

    /** Sends {@code src} from {@code from} to {@code to} as one tagged message into {@code dst}; data checked. */
    private static void rendezvous(RxmNode from, long toAddr, RxmNode to, long fromAddr, MemorySegment src,
                                   MemorySegment[] dst) {
        Object r = new Object();
        Object s = new Object();
        if (dst.length == 1) {
            assertEquals(0, to.ep.trecv(dst[0], null, fromAddr, 11, 0, r));
        } else {
            assertEquals(0, to.ep.trecvv(dst, null, dst.length, fromAddr, 11, 0, r));
        }
        assertEquals(0, RxmNode.retry(() -> from.ep.tsend(src, null, toAddr, 11, s), 10_000, from, to));
        assertTrue(RxmNode.await(() -> to.completionFor(r) != null && from.completionFor(s) != null, 20_000, from, to),
                () -> from + "\n" + to + from.errors + to.errors);
        assertEquals(src.byteSize(), to.completionFor(r).len);
        long off = 0;
        for (MemorySegment d : dst) {
            assertEquals(-1, src.asSlice(off, d.byteSize()).mismatch(d), "data at " + off);
            off += d.byteSize();
        }
    }

    @Test
    void rendezvousBetweenJfabricEndpointsOfThisHostIsCopiedStraightFromTheSender() {
        long size = (1 << 20) + 13;
        MemorySegment src = RxmNode.pattern(arena, size, 21);
        MemorySegment[] dst = {arena.allocate(4096, 64), arena.allocate(size - 4096, 64)};
        rendezvous(a, aToB, b, bToA, src, dst);
        assertTrue(b.ep.toString().contains("same-host copy (copies 1, fallbacks 0)"), b.ep.toString());
        // and the other way on the same connection
        MemorySegment back = RxmNode.pattern(arena, size, 22);
        rendezvous(b, bToA, a, aToB, back, new MemorySegment[] {arena.allocate(size, 64)});
        assertTrue(a.ep.toString().contains("same-host copy (copies 1, fallbacks 0)"), a.ep.toString());
    }

    @Test
    void heapBuffersTakeTheCoreReadOnEitherSide() {
        long size = 300_000;
        // a heap send buffer has no stable address: the request does not offer it, and the core reads it
        MemorySegment heapSrc = MemorySegment.ofArray(new byte[(int) size]);
        heapSrc.copyFrom(RxmNode.pattern(arena, size, 23));
        rendezvous(a, aToB, b, bToA, heapSrc, new MemorySegment[] {arena.allocate(size, 64)});
        assertTrue(b.ep.toString().contains("same-host copy (copies 0, fallbacks 0)"), b.ep.toString());
        // a heap receive buffer: offered, refused by the receiver, read through the core
        MemorySegment src = RxmNode.pattern(arena, size, 24);
        rendezvous(a, aToB, b, bToA, src, new MemorySegment[] {MemorySegment.ofArray(new byte[(int) size])});
        assertTrue(b.ep.toString().contains("same-host copy (copies 0, fallbacks 1)"), b.ep.toString());
    }

    @Test
    void sameHostCopyOffReadsEveryRendezvousThroughTheCore() {
        System.setProperty("jfabric.ofi_rxm.same_host_copy", "0");
        try (RxmNode c1 = new RxmNode(); RxmNode c2 = new RxmNode()) {
            long to2 = c1.insert(c2.name());
            long to1 = c2.insert(c1.name());
            for (long size : new long[] {131073, 1 << 20, 3L << 20}) {
                MemorySegment src = RxmNode.pattern(arena, size, (int) size);
                rendezvous(c1, to2, c2, to1, src, new MemorySegment[] {arena.allocate(size / 3, 64),
                        arena.allocate(size - size / 3, 64)});
            }
            assertFalse(c2.ep.toString().contains("same-host copy (copies"), c2.ep.toString());
        } finally {
            System.clearProperty("jfabric.ofi_rxm.same_host_copy");
        }
    }

    @Test
    void aBurstOfEagerSendsLeavesTogetherAtTheNextProgressCall() {
        assertEquals(2, burstWrites(a, aToB, b, bToA, 32), "the burst's first send when posted, the rest together");
    }

    @Test
    void coalescingOffWritesEverySendWhenPosted() {
        System.setProperty("jfabric.ofi_rxm.coalesce_sends", "0");
        try (RxmNode c1 = new RxmNode(); RxmNode c2 = new RxmNode()) {
            assertEquals(31, burstWrites(c1, c1.insert(c2.name()), c2, c2.insert(c1.name()), 32));
        } finally {
            System.clearProperty("jfabric.ofi_rxm.coalesce_sends");
        }
    }

    @Test
    void aBurstOfRmaReadsLeavesTogetherAtTheNextProgressCall() {
        rmaBurst(false);
    }

    @Test
    void aBurstOfRmaWritesLeavesTogetherAtTheNextProgressCall() {
        rmaBurst(true);
    }

    /**
     * Posts 32 RMA reads or writes of 128 B back to back (all within tcp's 9000 B staging buffer) after a first one
     * has completed; checks they took two core writes up to the next progress call (the first when posted, the rest
     * together) and that every byte arrived.
     */
    private void rmaBurst(boolean write) {
        int burst = 32;
        MemorySegment target = write ? arena.allocate(128L * burst) : RxmNode.pattern(arena, 128L * burst, 3);
        long access = write ? io.jfabric.Access.REMOTE_WRITE : io.jfabric.Access.REMOTE_READ;
        io.jfabric.MemoryRegion mr = b.domain.registerMemory(target, access, 0x5150);
        try {
            MemorySegment first = arena.allocate(128);
            assertEquals(0, RxmNode.retry(() -> write ? a.ep.write(first, null, aToB, 0, 0x5150, "first")
                    : a.ep.read(first, null, aToB, 0, 0x5150, "first"), 10_000, a, b));
            assertTrue(RxmNode.await(() -> a.completionFor("first") != null, 10_000, a, b), () -> a.errors.toString());
            long before = coreWrites(a);
            MemorySegment[] local = new MemorySegment[burst];
            for (int i = 0; i < burst; i++) {
                local[i] = write ? RxmNode.pattern(arena, 128, i) : arena.allocate(128);
                int rc = write ? a.ep.write(local[i], null, aToB, 128L * i, 0x5150, i)
                        : a.ep.read(local[i], null, aToB, 128L * i, 0x5150, i);
                assertEquals(0, rc, "post " + i);
            }
            a.poll();
            assertEquals(2, coreWrites(a) - before, "the burst's first request when posted, the rest together");
            assertTrue(RxmNode.await(() -> a.completions.size() == burst + 1, 10_000, a, b),
                    () -> "completions " + a.completions.size() + ", errors " + a.errors);
            for (int i = 0; i < burst; i++) {
                assertEquals(-1, local[i].mismatch(target.asSlice(128L * i, 128)), "operation " + i);
            }
        } finally {
            mr.close();
        }
    }

    /**
     * Injects {@code burst} tagged 64 B messages from {@code from} (the first on its own, then the rest with no
     * progress call between them), checks every one arrives whole; returns the core writes the rest took
     * until and including the next progress call.
     */
    private long burstWrites(RxmNode from, long toAddr, RxmNode to, long fromAddr, int burst) {
        MemorySegment[] dst = new MemorySegment[burst];
        for (int i = 0; i < burst; i++) {
            dst[i] = arena.allocate(64);
            assertEquals(0, to.ep.trecv(dst[i], null, fromAddr, i, 0, dst[i]));
        }
        // the first message on its own: the connection is up and its handshake written
        MemorySegment first = RxmNode.pattern(arena, 64, 0);
        assertEquals(0, RxmNode.retry(() -> from.ep.tinject(first, toAddr, 0), 10_000, from, to));
        assertTrue(RxmNode.await(() -> to.completions.size() == 1, 20_000, from, to), () -> "first message: " + to);
        from.poll();
        long before = coreWrites(from);
        for (int i = 1; i < burst; i++) {
            assertEquals(0, from.ep.tinject(RxmNode.pattern(arena, 64, i), toAddr, i), "inject " + i);
        }
        from.poll();
        long writes = coreWrites(from) - before;
        assertTrue(RxmNode.await(() -> to.completions.size() == burst, 20_000, from, to), () -> "received: " + to);
        for (CqEntry e : to.completions) {
            int i = (int) e.tag;
            assertEquals(-1, RxmNode.firstMismatch(RxmNode.pattern(arena, 64, i), dst[i]), "message " + i);
        }
        return writes;
    }

    /** Socket writes of the node's only core connection, as tcp's state dump gives them. */
    private static long coreWrites(RxmNode n) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("writes (\\d+)").matcher(n.ep.toString());
        assertTrue(m.find(), "no core connection in " + n.ep);
        long w = Long.parseLong(m.group(1));
        assertFalse(m.find(), "one core connection expected: " + n.ep);
        return w;
    }

    @Test
    void aRemovedFiAddrIsRefusedAndAReinsertedPeerGoesOnOverItsConnection() {
        MemorySegment src = RxmNode.pattern(arena, 64, 5);
        MemorySegment[] dst = {arena.allocate(64), arena.allocate(64), arena.allocate(64)};
        assertEquals(0, b.ep.trecv(dst[0], null, bToA, 0, 0, dst[0]));
        assertEquals(0, RxmNode.retry(() -> a.ep.tinject(src, aToB, 0), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.completions.size() == 1, 20_000, a, b), () -> "first message: " + b);
        String before = a.ep.toString();

        // b sends while a removes it: its message still arrives, from no fi_addr a knows
        assertEquals(0, a.ep.trecv(dst[1], null, io.jfabric.Fabrics.ADDR_UNSPEC, 1, 0, dst[1]));
        assertEquals(0, a.av.remove(new long[] {aToB}, 0));
        assertEquals(-io.jfabric.Errno.EINVAL, a.ep.tinject(src, aToB, 1), "a removed fi_addr is refused");
        assertEquals(0, RxmNode.retry(() -> b.ep.tinject(src, bToA, 1), 10_000, a, b));
        assertTrue(RxmNode.await(() -> a.completions.size() == 1, 20_000, a, b), () -> "b's message: " + a);
        assertEquals(io.jfabric.Fabrics.ADDR_NOTAVAIL, a.completions.get(0).srcAddr, "b is no longer in a's AV");

        long again = a.insert(b.name());
        assertNotEquals(aToB, again, "inserted again: a new fi_addr");
        assertEquals(0, b.ep.trecv(dst[2], null, bToA, 2, 0, dst[2]));
        assertEquals(0, RxmNode.retry(() -> a.ep.tinject(src, again, 2), 10_000, a, b));
        assertTrue(RxmNode.await(() -> b.completions.size() == 2, 20_000, a, b), () -> "after reinsertion: " + b);
        assertEquals(coreConnections(before), coreConnections(a.ep.toString()), "the same connection: " + a.ep);
        for (CqEntry e : b.completions) {
            assertEquals(-1, RxmNode.firstMismatch(src, dst[(int) e.tag]), "message " + e.tag);
            assertEquals(bToA, e.srcAddr, "FI_SOURCE names a at b");
        }
        assertEquals(-1, RxmNode.firstMismatch(src, dst[1]), "b's message");
        assertTrue(a.errors.isEmpty() && b.errors.isEmpty(), "no error completions: " + a.errors + b.errors);
    }

    /** The core endpoints in an rxm endpoint's state dump (their peers' ports name them). */
    private static java.util.List<String> coreConnections(String dump) {
        java.util.List<String> found = new java.util.ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("core TcpEndpoint\\[state=\\d+, peer=([^,]+)").matcher(dump);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}
