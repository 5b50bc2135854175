package io.jfabric.provider.shm;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;
import io.jfabric.TaggedMsg;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every entry point of an shm endpoint owes through provider-util's UtilEndpoint: every iov
 * form gathers and scatters (or gives EINVAL where shm documents it cannot), error completions carry a
 * nonzero prov_errno, transmit completions report len 0, and the control calls an RDM endpoint refuses.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmEntryPointsTest extends ShmPairFixture {
    /** Message sizes that take the inline, bounce, CMA and (heap, or several buffers) pull protocols. */
    private static final long[] SIZES = {40, 3000, 9000, 150_000};

    private final CqEntry rxEntry = new CqEntry();
    private final CqEntry txEntry = new CqEntry();
    private final CqErrEntry err = new CqErrEntry();

    /** {@code n} native segments cut from {@code whole} at {@code cuts}. */
    private MemorySegment[] cut(MemorySegment whole, long... cuts) {
        MemorySegment[] iov = new MemorySegment[cuts.length + 1];
        long from = 0;
        for (int i = 0; i <= cuts.length; i++) {
            long to = i < cuts.length ? cuts[i] : whole.byteSize();
            iov[i] = arena.allocate(Math.max(1, to - from)).asSlice(0, to - from);
            MemorySegment.copy(whole, from, iov[i], 0, to - from);
            from = to;
        }
        return iov;
    }

    private MemorySegment pattern(long size, int seed) {
        MemorySegment s = arena.allocate(Math.max(1, size)).asSlice(0, size);
        ShmEndpointTest.fill(s, seed);
        return s;
    }

    /** Drives both nodes until b has a receive completion for {@code rctx} and a a send completion for {@code sctx}. */
    private void bothComplete(Object rctx, Object sctx) {
        CqEntry[] one = {new CqEntry()};
        boolean gotR = false;
        boolean gotS = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!(gotR && gotS) && System.nanoTime() < deadline) {
            int rc = b.cq.readFrom(one, 1);
            if (rc == 1 && one[0].context == rctx) {
                rxEntry.copyFrom(one[0]);
                gotR = true;
            }
            assertTrue(rc != -Errno.EAVAIL, () -> "receive error: " + readError(b.cq));
            rc = a.cq.read(one, 1);
            if (rc == 1 && one[0].context == sctx) {
                txEntry.copyFrom(one[0]);
                gotS = true;
            }
            assertTrue(rc != -Errno.EAVAIL, () -> "send error: " + readError(a.cq));
        }
        assertTrue(gotR && gotS, "completions missing: " + a.ep + " / " + b.ep);
    }

    private CqErrEntry readError(CompletionQueue cq) {
        cq.readError(err, 0);
        return err;
    }

    /**
     * Drives both nodes until {@code node} reports an error completion, which must be for {@code ctx}; success
     * completions on the way (the other side of an operation) are passed over.
     */
    private CqErrEntry nextError(ShmNode node, Object ctx) {
        CqEntry[] one = {new CqEntry()};
        ShmNode other = node == a ? b : a;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            other.cq.read(new CqEntry[0], 0);
            int rc = node.cq.read(one, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry e = readError(node.cq);
                assertSame(ctx, e.context);
                return e;
            }
            assertTrue(rc == -Errno.EAGAIN || rc == 1 && one[0].context != ctx,
                    () -> "expected an error completion for " + ctx + ", got " + rc);
        }
        throw new AssertionError("no error completion for " + ctx + ": " + node.ep);
    }

    @Test
    void sendvGathersAndRecvvScattersAtEveryProtocol() {
        for (long size : SIZES) {
            MemorySegment whole = pattern(size, (int) size);
            MemorySegment[] tx = cut(whole, 7, size / 2);
            MemorySegment[] rx = {arena.allocate(size / 3), arena.allocate(size - size / 3 + 10)};
            Object rctx = "recvv-" + size;
            Object sctx = "sendv-" + size;
            assertEquals(0, b.ep.recvv(rx, null, 2, Fabrics.ADDR_UNSPEC, rctx));
            assertEquals(0, a.ep.sendv(tx, null, 3, aToB, sctx));
            bothComplete(rctx, sctx);
            assertEquals(size, rxEntry.len, "received length at " + size);
            assertEquals(bToA, rxEntry.srcAddr);
            assertEquals(-1, rx[0].mismatch(whole.asSlice(0, size / 3)), "first receive buffer at " + size);
            assertEquals(-1, rx[1].asSlice(0, size - size / 3).mismatch(whole.asSlice(size / 3)),
                    "second receive buffer at " + size);
        }
    }

    /**
     * A large message from one native buffer is read with CMA straight into a receive of several buffers whose
     * boundaries fall anywhere, whether the receive was posted first or not, and truncated there as into one buffer;
     * a message from several buffers is pulled through the sender's bounce slots (docs/differences.md).
     */
    @Test
    void aLargeMessageFromOneNativeBufferIsReadWithCmaIntoSeveralReceiveBuffers() {
        long size = 150_000;
        MemorySegment whole = pattern(size, 9);
        long served = ((ShmEndpoint) a.ep).chunksServed();
        for (boolean receiveFirst : new boolean[] {true, false}) {
            MemorySegment[] rx = {arena.allocate(50_000), arena.allocate(1).asSlice(0, 0), arena.allocate(3_000),
                arena.allocate(size - 53_000 + 7)};
            Object rctx = "recvv-" + receiveFirst;
            Object sctx = "send-" + receiveFirst;
            if (receiveFirst) {
                assertEquals(0, b.ep.recvv(rx, null, 4, Fabrics.ADDR_UNSPEC, rctx));
            }
            assertEquals(0, a.ep.send(whole, null, aToB, sctx));
            if (!receiveFirst) {
                b.progressFor(20); // the command waits as an unexpected message
                assertEquals(0, b.ep.recvv(rx, null, 4, Fabrics.ADDR_UNSPEC, rctx));
            }
            bothComplete(rctx, sctx);
            assertEquals(size, rxEntry.len);
            assertEquals(-1, rx[0].mismatch(whole.asSlice(0, 50_000)), "receive first: " + receiveFirst);
            assertEquals(-1, rx[2].mismatch(whole.asSlice(50_000, 3_000)));
            assertEquals(-1, rx[3].asSlice(0, size - 53_000).mismatch(whole.asSlice(53_000)));
        }
        assertEquals(served, ((ShmEndpoint) a.ep).chunksServed(), "no chunk went through a bounce slot");

        // truncated: the bytes that fit arrive, the receive reports the rest
        MemorySegment[] into = {arena.allocate(60_000), arena.allocate(40_000)};
        assertEquals(0, b.ep.recvv(into, null, 2, Fabrics.ADDR_UNSPEC, "short"));
        assertEquals(0, a.ep.send(whole, null, aToB, "long"));
        CqErrEntry e = nextError(b, "short");
        assertEquals(Errno.ETRUNC, e.err);
        assertEquals(size - 100_000, e.olen);
        assertEquals(-1, into[0].mismatch(whole.asSlice(0, 60_000)));
        assertEquals(-1, into[1].mismatch(whole.asSlice(60_000, 40_000)));
        assertEquals(served, ((ShmEndpoint) a.ep).chunksServed());

        // several native buffers: pulled, which streams faster than CMA here (docs/differences.md)
        MemorySegment dst = arena.allocate(size);
        assertEquals(0, b.ep.recv(dst, null, Fabrics.ADDR_UNSPEC, "r-several"));
        assertEquals(0, a.ep.sendv(cut(whole, 60_000, 60_001), null, 3, aToB, "s-several"));
        bothComplete("r-several", "s-several");
        assertEquals(-1, dst.mismatch(whole));
        assertTrue(((ShmEndpoint) a.ep).chunksServed() > served, "the message was pulled");
    }

    @Test
    void taggedAndMsgFormsWithSeveralBuffersMatchWhenTheMessageCameFirst() {
        for (long size : SIZES) {
            MemorySegment whole = pattern(size, 3);
            TaggedMsg send = new TaggedMsg(4);
            MemorySegment[] tx = cut(whole, 1, 2, size - 1);
            System.arraycopy(tx, 0, send.iov, 0, 4);
            send.iovCount = 4;
            send.addr = aToB;
            send.tag = 0x77;
            send.data = 0xabcdef;
            send.context = "tsendmsg-" + size;
            // the message is unexpected: it waits until the receive is posted
            assertEquals(0, a.ep.tsendmsg(send, OpFlags.REMOTE_CQ_DATA | OpFlags.COMPLETION));
            b.progressFor(20);
            MemorySegment[] rx = {arena.allocate(size / 2), arena.allocate(size - size / 2)};
            Object rctx = "trecvv-" + size;
            assertEquals(0, b.ep.trecvv(rx, null, 2, Fabrics.ADDR_UNSPEC, 0x70, 0x0f, rctx));
            bothComplete(rctx, send.context);
            assertEquals(size, rxEntry.len);
            assertEquals(0x77, rxEntry.tag);
            assertEquals(0xabcdef, rxEntry.data);
            assertTrue((rxEntry.flags & OpFlags.REMOTE_CQ_DATA) != 0);
            assertEquals(-1, rx[0].mismatch(whole.asSlice(0, size / 2)));
            assertEquals(-1, rx[1].mismatch(whole.asSlice(size / 2)));

            Msg recv = new Msg(2);
            MemorySegment[] rx2 = {arena.allocate(size - 5), arena.allocate(5)};
            recv.iov[0] = rx2[0];
            recv.iov[1] = rx2[1];
            recv.iovCount = 2;
            recv.addr = Fabrics.ADDR_UNSPEC;
            recv.context = "recvmsg-" + size;
            assertEquals(0, b.ep.recvmsg(recv, 0));
            Msg m = new Msg(2);
            MemorySegment[] tx2 = cut(whole, size / 4);
            m.iov[0] = tx2[0];
            m.iov[1] = tx2[1];
            m.iovCount = 2;
            m.addr = aToB;
            m.context = "sendmsg-" + size;
            assertEquals(0, a.ep.sendmsg(m, OpFlags.COMPLETION));
            bothComplete(recv.context, m.context);
            assertEquals(-1, rx2[0].mismatch(whole.asSlice(0, size - 5)));
            assertEquals(-1, rx2[1].mismatch(whole.asSlice(size - 5)));
        }
    }

    @Test
    void formsShmCannotServeAnswerEinval() {
        MemorySegment[] five = new MemorySegment[5];
        for (int i = 0; i < five.length; i++) {
            five[i] = arena.allocate(8);
        }
        assertEquals(-Errno.EINVAL, a.ep.sendv(five, null, 5, aToB, "too many"), "more buffers than iov_limit");
        assertEquals(-Errno.EINVAL, b.ep.recvv(five, null, 5, Fabrics.ADDR_UNSPEC, "too many"));
        MemorySegment[] two = {arena.allocate(8), arena.allocate(8)};
        MemorySegment[] fiveRma = {two[0], two[1], two[0], two[1], two[0]};
        assertEquals(-Errno.EINVAL, a.ep.writev(fiveRma, null, 5, aToB, 0, 1, "writev"), "more buffers than iov_limit");
        assertEquals(-Errno.EINVAL, a.ep.writev(new MemorySegment[] {two[0], MemorySegment.ofArray(new byte[8])}, null,
                2, aToB, 0, 1, "heap"), "the target copies RMA buffers with CMA: native memory only");
        Msg multi = new Msg(2);
        multi.iov[0] = two[0];
        multi.iov[1] = two[1];
        multi.iovCount = 2;
        multi.addr = Fabrics.ADDR_UNSPEC;
        assertEquals(-Errno.EINVAL, b.ep.recvmsg(multi, OpFlags.MULTI_RECV), "a multi-receive buffer is one buffer");
        assertTrue(a.info.txAttr.iovLimit == ShmIov.LIMIT && a.info.rxAttr.iovLimit == ShmIov.LIMIT
                && a.info.txAttr.rmaIovLimit == ShmIov.LIMIT, "the info tells what the endpoint serves");
    }

    @Test
    void readvWritevAndTheRmaMsgFormsWork() {
        MemorySegment target = arena.allocate(4096);
        MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0x42);
        try {
            long base = b.info.domainAttr.mrMode != 0 && (b.info.domainAttr.mrMode & io.jfabric.MrMode.VIRT_ADDR) != 0
                    ? target.address() : 0;
            MemorySegment src = pattern(1000, 9);
            assertEquals(0, a.ep.writev(new MemorySegment[] {src}, null, 1, aToB, base + 100, 0x42, "writev"));
            pumpTx("writev");
            assertEquals(0, txEntry.len, "a transmit completion reports len 0");
            assertEquals(-1, target.asSlice(100, 1000).mismatch(src));
            MemorySegment back = arena.allocate(1000);
            RmaMsg rm = rmaMsg(0x42, new MemorySegment[] {back}, "readmsg", base + 100, 1000);
            assertEquals(0, a.ep.readmsg(rm, OpFlags.COMPLETION));
            pumpTx("readmsg");
            assertTrue((txEntry.flags & OpFlags.READ) != 0);
            assertEquals(-1, back.mismatch(src));

            // four buffers of uneven sizes into three ranges, then read back through two buffers from two ranges
            MemorySegment whole = pattern(1500, 21);
            MemorySegment[] parts = cut(whole, 100, 700, 701);
            RmaMsg wm = rmaMsg(0x42, parts, "writemsg vector", base + 2000, 300, base + 2500, 1000, base + 3800, 200);
            assertEquals(0, a.ep.writemsg(wm, OpFlags.COMPLETION));
            pumpTx("writemsg vector");
            assertEquals(-1, target.asSlice(2000, 300).mismatch(whole.asSlice(0, 300)));
            assertEquals(-1, target.asSlice(2500, 1000).mismatch(whole.asSlice(300, 1000)));
            assertEquals(-1, target.asSlice(3800, 200).mismatch(whole.asSlice(1300, 200)));
            assertEquals(0, target.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 2300), "nothing between the ranges");

            MemorySegment firstBack = arena.allocate(400);
            MemorySegment secondBack = arena.allocate(200);
            RmaMsg vm = rmaMsg(0x42, new MemorySegment[] {firstBack, secondBack}, "readmsg vector", base + 2000, 300,
                    base + 2500, 300);
            assertEquals(0, a.ep.readmsg(vm, OpFlags.COMPLETION));
            pumpTx("readmsg vector");
            assertEquals(-1, firstBack.asSlice(0, 300).mismatch(whole.asSlice(0, 300)));
            assertEquals(-1, firstBack.asSlice(300, 100).mismatch(whole.asSlice(300, 100)));
            assertEquals(-1, secondBack.mismatch(whole.asSlice(400, 200)));

            // one range the key does not reach refuses the whole operation: nothing is written
            MemorySegment before = arena.allocate(4096).copyFrom(target);
            wm.rmaIov[2].set(base + 4000, 200, 0x42); // runs past the 4096-byte region
            wm.context = "writemsg refused";
            assertEquals(0, a.ep.writemsg(wm, OpFlags.COMPLETION));
            CqErrEntry refused = nextError(a, "writemsg refused");
            assertEquals(Errno.EINVAL, refused.err, "a range outside the region");
            assertEquals(-1, target.mismatch(before), "a refused vector write changes nothing");
        } finally {
            mr.close();
        }
    }

    /**
     * Four ranges that each cross a four-segment region's boundaries, against four buffers cut elsewhere: more pieces
     * contiguous on both sides (19) than one process_vm_readv/writev names, so the target copies them in two vectored
     * calls, and every byte lands where the lists say.
     */
    @Test
    void aVectorRmaOfMorePiecesThanOneVectoredCopyTakesArrivesWhole() {
        MemorySegment[] segments = new MemorySegment[4];
        for (int i = 0; i < segments.length; i++) {
            segments[i] = pattern(1000, 30 + i);
        }
        MemorySegment region = arena.allocate(4000);
        for (int i = 0; i < segments.length; i++) {
            MemorySegment.copy(segments[i], 0, region, 1000L * i, 1000);
        }
        try (MemoryRegion mr = b.domain.registerMemory(segments, 4, Access.REMOTE_READ | Access.REMOTE_WRITE, 0, 0x42,
                0)) {
            long base = ((io.jfabric.util.UtilMemoryRegion) mr).remoteBase();
            // each range starts in the first segment and ends in the last: four pieces a range
            long[] starts = {5, 10, 15, 20};
            long len = 3950;
            MemorySegment expected = arena.allocate(len * 4);
            for (int i = 0; i < 4; i++) {
                MemorySegment.copy(region, starts[i], expected, len * i, len);
            }
            MemorySegment[] back = cut(arena.allocate(len * 4), 1001, 7003, 11_111);
            RmaMsg read = rmaMsg(0x42, back, "read of 19 pieces", base + starts[0], len, base + starts[1], len,
                    base + starts[2], len, base + starts[3], len);
            assertEquals(0, a.ep.readmsg(read, OpFlags.COMPLETION));
            pumpTx("read of 19 pieces");
            long at = 0;
            for (MemorySegment piece : back) {
                assertEquals(-1, piece.mismatch(expected.asSlice(at, piece.byteSize())), "read back at " + at);
                at += piece.byteSize();
            }

            // and the other way: four ranges, each across a boundary, written from three buffers
            MemorySegment whole = pattern(400, 50);
            RmaMsg write = rmaMsg(0x42, cut(whole, 150, 230), "write across boundaries", base + 950, 100,
                    base + 1950, 100, base + 2950, 100, base + 3900, 100);
            assertEquals(0, a.ep.writemsg(write, OpFlags.COMPLETION));
            pumpTx("write across boundaries");
            assertEquals(-1, segments[0].asSlice(950).mismatch(whole.asSlice(0, 50)));
            assertEquals(-1, segments[1].asSlice(0, 50).mismatch(whole.asSlice(50, 50)));
            assertEquals(-1, segments[1].asSlice(950).mismatch(whole.asSlice(100, 50)));
            assertEquals(-1, segments[2].asSlice(0, 50).mismatch(whole.asSlice(150, 50)));
            assertEquals(-1, segments[2].asSlice(950).mismatch(whole.asSlice(200, 50)));
            assertEquals(-1, segments[3].asSlice(0, 50).mismatch(whole.asSlice(250, 50)));
            assertEquals(-1, segments[3].asSlice(900).mismatch(whole.asSlice(300, 100)));
            assertEquals(-1, segments[0].asSlice(0, 950).mismatch(region.asSlice(0, 950)), "nothing else changed");
        }
    }

    @Test
    void injectWritesCarryTheirBytesSoTheBuffersAreFreeAtOnce() {
        MemorySegment target = arena.allocate(4096);
        MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_WRITE, 0x43);
        try {
            long base = (b.info.domainAttr.mrMode & io.jfabric.MrMode.VIRT_ADDR) != 0 ? target.address() : 0;
            int injectSize = (int) a.info.txAttr.injectSize;
            assertTrue(injectSize >= 64 && injectSize + 2048 <= target.byteSize(), "inject_size " + injectSize);

            MemorySegment src = pattern(injectSize, 11);
            assertEquals(0, a.ep.injectWrite(src, aToB, base + 8, 0x43));
            src.fill((byte) 0); // the caller's again as soon as the call returns
            MemorySegment heap = MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            assertEquals(0, a.ep.injectWritedata(heap, 0x5eedL, aToB, base + 2048 + 64, 0x43), "heap memory is copied");
            heap.fill((byte) 0);

            CqEntry remote = awaitRemoteData(0x5eedL);
            assertTrue((remote.flags & OpFlags.REMOTE_WRITE) != 0, OpFlags.toString(remote.flags));
            assertEquals(-1, target.asSlice(8, injectSize).mismatch(pattern(injectSize, 11)));
            assertEquals(-1, target.asSlice(2048 + 64, 8).mismatch(MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8})));
            assertEquals(0, target.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 7), "nothing before the range");
            assertEquals(0, target.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 8 + injectSize), "nothing after it");
            assertEquals(-Errno.EAGAIN, a.cq.read(new CqEntry[] {new CqEntry()}, 1), "fi_inject_write writes no completion");

            assertEquals(-Errno.EMSGSIZE, a.ep.injectWrite(arena.allocate(injectSize + 1), aToB, base, 0x43),
                    "past inject_size");

            // fi_writemsg with FI_INJECT gathers its buffers into the command and still completes
            RmaMsg rm = new RmaMsg(2);
            rm.iov[0] = pattern(24, 12);
            rm.iov[1] = pattern(40, 13);
            rm.iovCount = 2;
            rm.rmaIov[0].set(base + 1024, 64, 0x43);
            rm.rmaIovCount = 1;
            rm.addr = aToB;
            rm.context = "writemsg inject";
            assertEquals(0, a.ep.writemsg(rm, OpFlags.INJECT | OpFlags.COMPLETION));
            rm.iov[0].fill((byte) 0);
            rm.iov[1].fill((byte) 0);
            pumpTx("writemsg inject");
            assertTrue((txEntry.flags & OpFlags.WRITE) != 0);
            assertEquals(-1, target.asSlice(1024, 24).mismatch(pattern(24, 12)));
            assertEquals(-1, target.asSlice(1024 + 24, 40).mismatch(pattern(40, 13)));

            // a key the target never registered: the inject's error still reaches the initiator's CQ
            assertEquals(0, a.ep.injectWrite(pattern(16, 14), aToB, 0, 0x7777));
            assertEquals(Errno.ENOKEY, nextError(a, null).err);
        } finally {
            mr.close();
        }
    }

    /** Drives both nodes until b reports a remote write with CQ data {@code data}. */
    private CqEntry awaitRemoteData(long data) {
        return awaitEntry(b, e -> e.data == data, "remote CQ data " + data);
    }

    /** Drives both nodes until a's completion for {@code ctx} shows up (in {@link #txEntry}). */
    private void pumpTx(Object ctx) {
        txEntry.copyFrom(awaitEntry(a, e -> e.context == ctx, "completion of " + ctx));
    }

    @Test
    void transmitCompletionsReportLenZeroAtEveryProtocol() {
        for (long size : SIZES) {
            MemorySegment src = pattern(size, 1);
            Object rctx = "r-" + size;
            Object sctx = "s-" + size;
            assertEquals(0, b.ep.recv(arena.allocate(size), null, Fabrics.ADDR_UNSPEC, rctx));
            assertEquals(0, a.ep.send(src, null, aToB, sctx));
            bothComplete(rctx, sctx);
            assertEquals(0, txEntry.len, "fi_cq(3): len is for receives; send of " + size);
            assertEquals(size, rxEntry.len);
            assertTrue((txEntry.flags & OpFlags.SEND) != 0);
        }
    }

    @Test
    void errorCompletionsCarryANonzeroProvErrno() {
        // cancelled receive
        assertEquals(0, b.ep.recv(arena.allocate(8), null, Fabrics.ADDR_UNSPEC, "cancel me"));
        assertEquals(0, b.ep.cancel("cancel me"));
        CqErrEntry e = nextError(b, "cancel me");
        assertEquals(Errno.ECANCELED, e.err);
        assertEquals(Errno.ECANCELED, e.provErrno, "prov_errno names the error (strerror must not say Success)");

        // truncated receive, inline and CMA
        for (long size : new long[] {64, 150_000}) {
            assertEquals(0, b.ep.recv(arena.allocate(10), null, Fabrics.ADDR_UNSPEC, "short"));
            assertEquals(0, a.ep.send(pattern(size, 2), null, aToB, "long"));
            e = nextError(b, "short");
            assertEquals(Errno.ETRUNC, e.err);
            assertEquals(Errno.ETRUNC, e.provErrno);
            assertEquals(size - 10, e.olen);
        }

        // RMA through a key that was never registered: the initiator's error completion
        assertEquals(0, a.ep.write(pattern(16, 4), null, aToB, 0, 0x7777, "bad key"));
        e = nextError(a, "bad key");
        assertEquals(Errno.ENOKEY, e.err);
        assertEquals(Errno.ENOKEY, e.provErrno);
    }

    @Test
    void controlCallsAnRdmEndpointRefuses() {
        FabricException e = assertThrows(FabricException.class, () -> a.ep.connect(b.name(), null));
        assertEquals(Errno.ENOSYS, e.errno());
        e = assertThrows(FabricException.class, () -> a.ep.accept(null));
        assertEquals(Errno.ENOSYS, e.errno());
        try (CompletionQueue second = a.domain.openCq(CqAttr.of(CqFormat.TAGGED, 16))) {
            e = assertThrows(FabricException.class, () -> a.ep.bind(second, BindFlags.TRANSMIT));
            assertEquals(Errno.EINVAL, e.errno(), "one CQ per direction");
            e = assertThrows(FabricException.class, () -> a.ep.bind(second, BindFlags.RECV));
            assertEquals(Errno.EINVAL, e.errno());
        }
    }
}
