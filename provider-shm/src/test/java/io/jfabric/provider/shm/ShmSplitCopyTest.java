package io.jfabric.provider.shm;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;
import io.jfabric.provider.shm.wire.RegionLayout;
import io.jfabric.provider.shm.wire.Wire;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Large CMA messages whose receiver lets the sender write half (ShmSplitCopy), and the PUSH command's guards. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmSplitCopyTest extends ShmPairFixture {

    private final CqEntry entry = new CqEntry();
    private final CqErrEntry err = new CqErrEntry();

    private ShmSplitCopy split(ShmNode node) {
        return ((ShmEndpoint) node.ep).splitCopy();
    }

    private void expect(ShmNode node, Object context) {
        int rc = node.next(entry, err, 10_000);
        assertEquals(1, rc, () -> "expected a completion for " + context + ", got " + rc
                + (rc == -Errno.EAVAIL ? " err=" + err.err : "") + "; " + node.ep);
        assertSame(context, entry.context);
    }

    /**
     * A sender that waits on its CQ for each send, as a ping-pong or an RPC client does, is there to take the
     * receiver's offer: it writes the second half of messages into the receive buffer, every byte arrives where
     * it belongs (sizes that are not a multiple of a page included), and both sides count the same halves.
     */
    @Test
    void aSenderWaitingOnItsCqWritesHalfOfEachLargeMessage() throws Exception {
        long[] sizes = {64 * 1024, 128 * 1024 + 4_321, (1 << 20) + 12_345, 3 << 20};
        int rounds = 20;
        MemorySegment[] src = new MemorySegment[sizes.length];
        MemorySegment[] expected = new MemorySegment[sizes.length];
        MemorySegment[] dst = new MemorySegment[sizes.length];
        for (int k = 0; k < sizes.length; k++) {
            src[k] = arena.allocate(sizes[k], 4096);
            expected[k] = arena.allocate(sizes[k]);
            dst[k] = arena.allocate(sizes[k] + 64, 4096);
        }
        AtomicReference<Throwable> senderFailure = new AtomicReference<>();
        Thread sender = Thread.ofPlatform().name("split-copy-sender").start(() -> {
            try {
                CqEntry e = new CqEntry();
                CqErrEntry ee = new CqErrEntry();
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < sizes.length; k++) {
                        ShmEndpointTest.fill(src[k], round * 7L + k);
                        String ctx = "send " + round + "/" + k;
                        int rc;
                        while ((rc = a.ep.send(src[k], null, aToB, ctx)) == -Errno.EAGAIN) {
                            a.progressFor(1);
                        }
                        assertEquals(0, rc, "send " + ctx);
                        int got = a.next(e, ee, 10_000);
                        assertEquals(1, got, () -> "send " + ctx + ": " + got + " " + ee.err + "; " + a.ep);
                        assertEquals(ctx, e.context);
                    }
                }
            } catch (Throwable t) {
                senderFailure.set(t);
            }
        });
        try {
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < sizes.length; k++) {
                    String ctx = "recv " + round + "/" + k;
                    assertEquals(0, b.ep.recv(dst[k], null, Fabrics.ADDR_UNSPEC, ctx));
                    expect(b, ctx);
                    assertEquals(sizes[k], entry.len);
                    ShmEndpointTest.fill(expected[k], round * 7L + k);
                    long at = expected[k].mismatch(dst[k].asSlice(0, sizes[k]));
                    assertEquals(-1, at, "message " + ctx + " differs at byte " + at);
                }
            }
        } finally {
            sender.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertNull(senderFailure.get(), () -> "the sender failed: " + senderFailure.get());
        long helped = split(b).halvesCopiedByPeer;
        assertTrue(helped > 0, "the sender wrote no half of " + rounds * sizes.length + " messages");
        assertEquals(helped, split(a).halvesCopiedForPeers, "halves the sender wrote and the receiver counted");
    }

    /**
     * A large message into a receive of several buffers is split when its second half lands in one of them (a small
     * header buffer, then the payload's), and read whole by the receiver when that half spans two.
     */
    @Test
    void aReceiveOfSeveralBuffersIsSplitWhenTheSecondHalfLandsInOne() throws Exception {
        long size = (1 << 20) + 12_345;
        MemorySegment src = arena.allocate(size, 4096);
        MemorySegment header = arena.allocate(64);
        MemorySegment payload = arena.allocate(size, 4096);
        MemorySegment[] quarters = new MemorySegment[4];
        for (int i = 0; i < quarters.length; i++) {
            quarters[i] = arena.allocate(size / 4 + 1, 4096);
        }
        int rounds = 200;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> senderFailure = new AtomicReference<>();
        java.util.concurrent.Semaphore go = new java.util.concurrent.Semaphore(0);
        Thread sender = Thread.ofPlatform().name("split-copy-sender").start(() -> {
            try {
                CqEntry e = new CqEntry();
                CqErrEntry ee = new CqErrEntry();
                for (int round = 0; !stop.get(); round++) {
                    if (!go.tryAcquire(10, TimeUnit.SECONDS) || stop.get()) {
                        return;
                    }
                    String ctx = "send " + round;
                    int rc;
                    while ((rc = a.ep.send(src, null, aToB, ctx)) == -Errno.EAGAIN) {
                        a.progressFor(1);
                    }
                    assertEquals(0, rc, ctx);
                    int got = a.next(e, ee, 10_000);
                    assertEquals(1, got, () -> ctx + ": " + got + " " + ee.err + "; " + a.ep);
                }
            } catch (Throwable t) {
                senderFailure.set(t);
            }
        });
        try {
            long before = split(b).halvesCopiedByPeer;
            for (int round = 0; round < rounds && split(b).halvesCopiedByPeer == before; round++) {
                ShmEndpointTest.fill(src, round * 11L + 4);
                receiveInto(new MemorySegment[] {header, payload}, size, go, "header and payload " + round);
                assertEquals(-1, header.mismatch(src.asSlice(0, 64)), "header " + round);
                long at = payload.asSlice(0, size - 64).mismatch(src.asSlice(64, size - 64));
                assertEquals(-1, at, "payload " + round + " differs at byte " + at);
            }
            assertTrue(split(b).halvesCopiedByPeer > before, "the sender wrote no half of " + rounds);

            before = split(b).halvesCopiedByPeer;
            for (int round = 0; round < 20; round++) {
                ShmEndpointTest.fill(src, round * 11L + 5);
                receiveInto(quarters, size, go, "quarters " + round);
                long done = 0;
                for (MemorySegment q : quarters) {
                    long k = Math.min(q.byteSize(), size - done);
                    assertEquals(-1, q.asSlice(0, k).mismatch(src.asSlice(done, k)), "quarters " + round);
                    done += k;
                }
            }
            assertEquals(before, split(b).halvesCopiedByPeer, "a second half over two receive buffers was offered");
        } finally {
            stop.set(true);
            go.release();
            sender.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertNull(senderFailure.get(), () -> "the sender failed: " + senderFailure.get());
        assertEquals(split(b).halvesCopiedByPeer, split(a).halvesCopiedForPeers, "halves written and counted");
    }

    /** Posts a receive of {@code iov}, lets the sender send one message, and waits for the receive. */
    private void receiveInto(MemorySegment[] iov, long size, java.util.concurrent.Semaphore go, String ctx) {
        assertEquals(0, b.ep.recvv(iov, null, iov.length, Fabrics.ADDR_UNSPEC, ctx));
        go.release();
        expect(b, ctx);
        assertEquals(size, entry.len, ctx);
    }

    /**
     * A large RMA write or read of one registered segment is split as a large message is: the target, having checked
     * the key and range, offers the initiator the second half, and an initiator waiting on its CQ copies it (writes
     * it into the region, or reads it into its own buffer); every byte lands where the RMA names, and both sides
     * count the same halves.
     */
    @Test
    void anInitiatorWaitingOnItsCqCopiesHalfOfEachLargeRma() throws Exception {
        long size = (1 << 20) + 12_345;
        MemorySegment target = arena.allocate(size + 100, 4096);
        MemorySegment src = arena.allocate(size, 4096);
        // the initiator takes an offer only when it is on a CPU while the target copies its half: on two cores shared
        // with the target's thread and the JIT that can miss a few times in a row, so up to 200 rounds each way
        int rounds = 200;
        try (MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0x51)) {
            long base = (b.info.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? target.address() : 0;
            AtomicBoolean stop = new AtomicBoolean();
            Thread targetThread = progressUntil(b, stop);
            MemorySegment back = arena.allocate(size, 4096);
            try {
                for (int round = 0; round < rounds && split(a).halvesCopiedForPeers == 0; round++) {
                    ShmEndpointTest.fill(src, round * 3L + 1);
                    String ctx = "write " + round;
                    assertEquals(0, a.ep.write(src, null, aToB, base + 100, 0x51, ctx));
                    expect(a, ctx);
                    long at = target.asSlice(100, size).mismatch(src);
                    assertEquals(-1, at, "write " + round + " differs at byte " + at);
                }
            } finally {
                stop.set(true);
                targetThread.join(TimeUnit.SECONDS.toMillis(10));
            }
            long wrote = split(b).halvesCopiedByPeer;
            assertTrue(wrote > 0, "the initiator wrote no half of " + rounds + " writes");
            assertEquals(wrote, split(a).halvesCopiedForPeers, "halves the initiator wrote and the target counted");

            stop.set(false);
            Thread reads = progressUntil(b, stop);
            try {
                long before = split(a).halvesCopiedForPeers;
                for (int round = 0; round < rounds && split(a).halvesCopiedForPeers == before; round++) {
                    back.fill((byte) 0);
                    String ctx = "read " + round;
                    assertEquals(0, a.ep.read(back, null, aToB, base + 100, 0x51, ctx));
                    expect(a, ctx);
                    long at = back.mismatch(src);
                    assertEquals(-1, at, "read " + round + " differs at byte " + at);
                }
            } finally {
                stop.set(true);
                reads.join(TimeUnit.SECONDS.toMillis(10));
            }
            long read = split(b).halvesCopiedByPeer - wrote;
            assertTrue(read > 0, "the initiator read no half of " + rounds + " reads");
            assertEquals(wrote + read, split(a).halvesCopiedForPeers,
                    "halves the initiator read and the target counted");
        }
    }

    /**
     * A large vector RMA (three buffers of uneven sizes against two adjacent ranges) is split when the second half
     * of its bytes is one run of the target's memory: the initiator copies that half between its buffers and the
     * run, writes and reads alike. When the ranges leave a gap inside the second half, the target copies it all.
     */
    @Test
    void aLargeVectorRmaIsSplitWhenItsSecondHalfIsOneRunOfTheTarget() throws Exception {
        long size = (1 << 20) + 12_345;
        MemorySegment target = arena.allocate(size + 8192, 4096);
        MemorySegment whole = arena.allocate(size, 4096);
        MemorySegment[] parts = {whole.asSlice(0, 100_003), whole.asSlice(100_003, 500_000),
                whole.asSlice(600_003, size - 600_003)};
        MemorySegment back = arena.allocate(size, 4096);
        MemorySegment[] backParts = {back.asSlice(0, 333_333), back.asSlice(333_333, 7), back.asSlice(333_340,
                size - 333_340)};
        int rounds = 200;
        try (MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0x52)) {
            long base = (b.info.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? target.address() : 0;
            long first = 700_000;
            long[] adjacent = {base + 100, first, base + 100 + first, size - first};
            AtomicBoolean stop = new AtomicBoolean();
            Thread targetThread = progressUntil(b, stop);
            try {
                long before = split(b).halvesCopiedByPeer;
                for (int round = 0; round < rounds && split(b).halvesCopiedByPeer == before; round++) {
                    ShmEndpointTest.fill(whole, round * 5L + 2);
                    vectorRma(true, parts, "writev " + round, adjacent);
                    long at = target.asSlice(100, size).mismatch(whole);
                    assertEquals(-1, at, "vector write " + round + " differs at byte " + at);
                }
                assertTrue(split(b).halvesCopiedByPeer > before, "the initiator wrote no half of " + rounds);

                before = split(b).halvesCopiedByPeer;
                for (int round = 0; round < rounds && split(b).halvesCopiedByPeer == before; round++) {
                    back.fill((byte) 0);
                    vectorRma(false, backParts, "readv " + round, adjacent);
                    long at = back.mismatch(whole);
                    assertEquals(-1, at, "vector read " + round + " differs at byte " + at);
                }
                assertTrue(split(b).halvesCopiedByPeer > before, "the initiator read no half of " + rounds);
                assertEquals(split(b).halvesCopiedByPeer, split(a).halvesCopiedForPeers,
                        "halves the initiator copied and the target counted");

                // the second range starts 4 KiB past the first one's end: the second half is two runs
                long[] gap = {base + 100, first, base + 100 + first + 4096, size - first};
                before = split(b).halvesCopiedByPeer;
                for (int round = 0; round < 20; round++) {
                    ShmEndpointTest.fill(whole, round * 5L + 3);
                    vectorRma(true, parts, "gapped writev " + round, gap);
                    assertEquals(-1, target.asSlice(100, first).mismatch(whole.asSlice(0, first)));
                    assertEquals(-1, target.asSlice(100 + first + 4096, size - first)
                            .mismatch(whole.asSlice(first, size - first)), "gapped write " + round);
                    back.fill((byte) 0);
                    vectorRma(false, backParts, "gapped readv " + round, gap);
                    assertEquals(-1, back.mismatch(whole), "gapped read " + round);
                }
                assertEquals(before, split(b).halvesCopiedByPeer, "a second half of two runs was offered");
            } finally {
                stop.set(true);
                targetThread.join(TimeUnit.SECONDS.toMillis(10));
            }
        }
    }

    /** A writemsg or readmsg from a's {@code iov} to b's {@code ranges} (address, length pairs), waited for. */
    private void vectorRma(boolean write, MemorySegment[] iov, String ctx, long... ranges) {
        RmaMsg m = rmaMsg(0x52, iov, ctx, ranges);
        assertEquals(0, write ? a.ep.writemsg(m, OpFlags.COMPLETION) : a.ep.readmsg(m, OpFlags.COMPLETION), ctx);
        expect(a, ctx);
    }

    /** A thread that drives {@code node}'s progress until {@code stop} is set, as a target's own loop would. */
    private static Thread progressUntil(ShmNode node, AtomicBoolean stop) {
        return Thread.ofPlatform().name("progress").start(() -> {
            while (!stop.get()) {
                node.progressFor(1);
            }
        });
    }

    /**
     * A sender that does not progress while its message is received leaves the whole copy to the receiver, which
     * completes without waiting for it; the sender's later look at the withdrawn offer writes nothing into a buffer
     * that belongs to the application again.
     */
    @Test
    void anIdleSendersLateLookAtAWithdrawnOfferWritesNothing() {
        long size = 1 << 20;
        MemorySegment src = arena.allocate(size, 4096);
        MemorySegment dst = arena.allocate(size, 4096);
        ShmEndpointTest.fill(src, 5);
        assertEquals(0, b.ep.recv(dst, null, Fabrics.ADDR_UNSPEC, "r"));
        assertEquals(0, a.ep.send(src, null, aToB, "s"));
        expect(b, "r"); // only the receiver progresses
        assertEquals(-1, src.mismatch(dst), "the receiver read the whole message");
        assertEquals(0, split(b).halvesCopiedByPeer);
        dst.fill((byte) 0);
        expect(a, "s"); // now the sender takes the PUSH (withdrawn) and the ACK
        assertEquals(0, split(a).halvesCopiedForPeers);
        assertEquals(-1, dst.mismatch(arena.allocate(size)), "the sender wrote into the completed receive's buffer");
    }

    /**
     * Forged PUSH commands: a word index out of range is dropped as corrupt; one naming no send in flight, or an
     * offer the receiver's word does not hold, makes the sender write nothing.
     */
    @Test
    void forgedPushCommandsWriteNothing() {
        long size = 1 << 20;
        MemorySegment src = arena.allocate(size, 4096);
        MemorySegment scratch = arena.allocate(size, 4096);
        ShmEndpointTest.fill(src, 9);
        // a genuine CMA send from a to b, left unread in b's ring: its op is in flight at a
        assertEquals(0, a.ep.send(src, null, aToB, "s"));
        String aName = new String(a.name(), StandardCharsets.US_ASCII).substring("fi_shm://".length());
        String bName = new String(b.name(), StandardCharsets.US_ASCII).substring("fi_shm://".length());
        long bSender = ((ShmEndpoint) b.ep).senderId();
        try (ShmRegion bRegion = ShmRegion.open(ShmRegion.DEFAULT_DIRECTORY, bName);
             ShmRegion aRegion = ShmRegion.open(ShmRegion.DEFAULT_DIRECTORY, aName)) {
            long[] opId = {-1};
            int seen = bRegion.ring().read((type, s, at, length) -> {
                if (type == Wire.CMA) {
                    opId[0] = Wire.getLong(s, at + Wire.OP_ID);
                }
                return false; // leave it for b
            }, 1);
            assertEquals(0, seen);
            assertTrue(opId[0] >= 0, "no CMA command in b's ring");
            // word 3 of b's region holds nothing the forged offers name
            bRegion.segment().set(ValueLayout.JAVA_LONG, RegionLayout.SPLIT_WORDS_OFFSET + 3L * RegionLayout.SPLIT_WORD_STRIDE,
                    (77L << 3) | 5);
            MpscRing ring = aRegion.ring();
            push(ring, bSender, opId[0], RegionLayout.SPLIT_WORDS, (1L << 3) | 1, scratch.address()); // no such word
            push(ring, bSender, opId[0] + (1L << 40), 3, (77L << 3) | 1, scratch.address()); // no such op
            push(ring, bSender, opId[0], 3, (78L << 3) | 1, scratch.address()); // not the word's offer
            a.progressFor(200);
        }
        assertEquals(1, ((ShmEndpoint) a.ep).corruptDropped(), a.ep.toString());
        assertEquals(0, split(a).halvesCopiedForPeers);
        assertEquals(-1, scratch.mismatch(arena.allocate(size)), "a forged offer made the sender write");
        // the genuine message still goes through
        MemorySegment dst = arena.allocate(size, 4096);
        assertEquals(0, b.ep.recv(dst, null, Fabrics.ADDR_UNSPEC, "r"));
        expect(b, "r");
        assertEquals(-1, src.mismatch(dst));
        expect(a, "s");
    }

    private static void push(MpscRing ring, long sender, long opId, long word, long offer, long to) {
        long at = ring.tryClaim(Wire.PUSH, Wire.HEADER);
        MemorySegment s = ring.buffer();
        Wire.putLong(s, at + Wire.SENDER, sender);
        Wire.putLong(s, at + Wire.TAG, offer);
        Wire.putLong(s, at + Wire.DATA, to);
        Wire.putInt(s, at + Wire.FLAGS, 0);
        Wire.putInt(s, at + Wire.STATUS, 0);
        Wire.putLong(s, at + Wire.LENGTH, 4096);
        Wire.putLong(s, at + Wire.OP_ID, opId);
        Wire.putLong(s, at + Wire.ADDRESS, 0);
        Wire.putLong(s, at + Wire.KEY, word);
        ring.commit(at);
    }
}
