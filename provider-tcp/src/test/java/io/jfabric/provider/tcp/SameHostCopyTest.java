package io.jfabric.provider.tcp;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.RmaMsg;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same-host path between two jfabric tcp endpoints (here in one process, whose token each reads back): large
 * messages and RMA writes from native buffers are copied by the receiver (the target) and ACKed, large RMA reads of
 * native memory are copied by the initiator from the ranges the target checked and named; everything else keeps to
 * the socket.
 */
@Timeout(60)
class SameHostCopyTest {
    private static final String OFF = "jfabric.tcp.same_host_copy";
    private final Arena arena = Arena.ofShared();
    private Loopback pair;

    @AfterEach
    void tearDown() {
        System.clearProperty(OFF);
        if (pair != null) {
            pair.close();
        }
        arena.close();
    }

    private MemorySegment pattern(long size, int seed) {
        MemorySegment s = arena.allocate(size, 64);
        for (long i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    private static String state(Loopback.Side side) {
        return ((TcpEndpoint) side.ep).describe();
    }

    private static long writes(Loopback.Side side) {
        return ((TcpEndpoint) side.ep).connection().socketWrites();
    }

    /** Sends {@code tx} client to server into {@code rx} (one or more buffers) and checks every byte. */
    private void roundTrip(MemorySegment tx, MemorySegment... rx) {
        if (rx.length == 1) {
            assertEquals(0, pair.server.ep.recv(rx[0], null, 0, "rx"));
        } else {
            assertEquals(0, pair.server.ep.recvv(rx, null, rx.length, 0, "rx"));
        }
        assertEquals(0, pair.client.ep.send(tx, null, 0, "tx"));
        CqEntry got = pair.server.waitCq(10_000);
        assertEquals(tx.byteSize(), got.len);
        assertEquals("tx", pair.client.waitCq(10_000).context);
        long off = 0;
        for (MemorySegment r : rx) {
            assertEquals(-1, tx.asSlice(off, r.byteSize()).mismatch(r), "byte at " + off);
            off += r.byteSize();
        }
    }

    @Test
    void largeMessagesAreCopiedStraightFromTheSenderAndSmallOnesTakeTheSocket() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        MemorySegment big = pattern((1 << 20) + 3, 1);
        // the READY frames cross first; until the client hears it, a send keeps to the socket
        roundTrip(pattern(100, 9), arena.allocate(100));
        long before = writes(pair.client);
        roundTrip(big, arena.allocate(5000), arena.allocate(big.byteSize() - 5000));
        assertTrue(state(pair.server).contains("copied 1,"), state(pair.server));
        assertTrue(writes(pair.client) - before <= 2, "a copied message is one header on the socket: "
                + (writes(pair.client) - before) + " writes");
        roundTrip(pattern(65535, 2), arena.allocate(65535));
        assertTrue(state(pair.server).contains("copied 1,"), "below same_host_min: " + state(pair.server));
        // a heap receive buffer is filled through native scratch memory
        MemorySegment heap = MemorySegment.ofArray(new byte[(int) big.byteSize()]);
        roundTrip(big, heap);
        assertTrue(state(pair.server).contains("copied 2,"), state(pair.server));
        // and the other way
        MemorySegment back = pattern(300_000, 3);
        MemorySegment into = arena.allocate(back.byteSize());
        assertEquals(0, pair.client.ep.recv(into, null, 0, "back"));
        assertEquals(0, pair.server.ep.send(back, null, 0, "sent back"));
        assertEquals("back", pair.client.waitCq(10_000).context);
        pair.server.waitCq(10_000);
        assertEquals(-1, back.mismatch(into));
        assertTrue(state(pair.client).contains("copied 1,"), state(pair.client));
    }

    @Test
    void aShortReceiveGetsEtruncAndTheConnectionGoesOn() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        roundTrip(pattern(64, 0), arena.allocate(64));
        MemorySegment big = pattern(200_000, 4);
        MemorySegment small = arena.allocate(70_000);
        assertEquals(0, pair.server.ep.recv(small, null, 0, "small"));
        assertEquals(0, pair.client.ep.send(big, null, 0, "t1"));
        CqErrEntry err = pair.server.waitCqError(10_000);
        assertEquals(Errno.ETRUNC, err.err);
        assertEquals(70_000, err.len);
        assertEquals(130_000, err.olen);
        assertEquals(-1, small.mismatch(big.asSlice(0, 70_000)));
        pair.client.waitCq(10_000);
        roundTrip(big, arena.allocate(big.byteSize()));
        assertTrue(state(pair.server).contains("copied 2,"), state(pair.server));
    }

    @Test
    void withTheCopyOffEveryMessageTakesTheSocket() {
        System.setProperty(OFF, "false");
        pair = new Loopback(false, Progress.MANUAL, null, null);
        System.clearProperty(OFF);
        MemorySegment big = pattern(1 << 20, 5);
        roundTrip(pattern(64, 0), arena.allocate(64));
        roundTrip(big, arena.allocate(big.byteSize()));
        roundTrip(big, arena.allocate(big.byteSize()));
        assertFalse(state(pair.server).contains("same-host"), state(pair.server));
    }

    /** Reads {@code len} bytes at {@code offset} of {@code mr} into {@code dst} and checks them against {@code src}. */
    private void read(MemoryRegion mr, MemorySegment src, long offset, MemorySegment... dst) {
        long len = 0;
        for (MemorySegment d : dst) {
            len += d.byteSize();
        }
        if (dst.length == 1) {
            assertEquals(0, pair.client.ep.read(dst[0], null, 0, offset, mr.key(), "read"));
        } else {
            assertEquals(0, pair.client.ep.readv(dst, null, dst.length, 0, offset, mr.key(), "read"));
        }
        assertEquals("read", pair.client.waitCq(10_000).context);
        long off = offset;
        for (MemorySegment d : dst) {
            assertEquals(-1, src.asSlice(off, d.byteSize()).mismatch(d), "byte at " + off);
            off += d.byteSize();
        }
        assertTrue(len > 0);
    }

    @Test
    void largeReadsOfNativeMemoryAreCopiedFromTheTargetAndTheRestTakeTheSocket() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        roundTrip(pattern(64, 0), arena.allocate(64)); // the READY frames cross first
        MemorySegment target = pattern((1 << 20) + 3, 6);
        try (MemoryRegion mr = pair.server.domain.registerMemory(target, Access.REMOTE_READ, 0xB1L)) {
            long before = writes(pair.server);
            read(mr, target, 5, arena.allocate(5000), arena.allocate(200_000));
            assertTrue(state(pair.server).contains("reads lent 1)"), state(pair.server));
            assertTrue(state(pair.client).contains("copied 1,"), state(pair.client));
            assertTrue(writes(pair.server) - before <= 2, "a lent read is one header on the socket: "
                    + (writes(pair.server) - before) + " writes");
            read(mr, target, 0, MemorySegment.ofArray(new byte[300_000])); // a heap destination goes through scratch
            assertTrue(state(pair.client).contains("copied 2,"), state(pair.client));
            read(mr, target, 100, arena.allocate(65535)); // below same_host_min
            assertTrue(state(pair.server).contains("reads lent 2)"), state(pair.server));
        }
        MemorySegment heap = MemorySegment.ofArray(new byte[1 << 20]);
        heap.copyFrom(pattern(1 << 20, 7));
        try (MemoryRegion mr = pair.server.domain.registerMemory(heap, Access.REMOTE_READ, 0xB2L)) {
            read(mr, heap, 0, arena.allocate(1 << 19)); // heap memory has no address to name
            assertTrue(state(pair.server).contains("reads lent 2)"), state(pair.server));
        }
    }

    /** Writes {@code src} at {@code offset} of {@code mr}, with CQ data, and checks the bytes and the target's completion. */
    private void write(MemoryRegion mr, MemorySegment target, long offset, MemorySegment src) {
        assertEquals(0, pair.client.ep.writedata(src, null, 0x5EL, 0, offset, mr.key(), "write"));
        assertEquals("write", pair.client.waitCq(10_000).context);
        CqEntry remote = pair.server.waitCq(10_000);
        assertEquals(0x5EL, remote.data);
        assertEquals(src.byteSize(), remote.len);
        assertEquals(-1, src.mismatch(target.asSlice(offset, src.byteSize())));
    }

    /** Opens the pair, lets the READY frames cross, and registers {@code target} for remote writes as {@code key}. */
    private MemoryRegion pairWithWriteTarget(MemorySegment target, long key) {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        roundTrip(pattern(64, 0), arena.allocate(64));
        return pair.server.domain.registerMemory(target, Access.REMOTE_WRITE, key);
    }

    @Test
    void largeWritesFromOneNativeBufferAreCopiedByTheTargetAndTheRestTakeTheSocket() {
        MemorySegment target = arena.allocate((1 << 20) + 7, 64);
        try (MemoryRegion mr = pairWithWriteTarget(target, 0xC1L)) {
            long before = writes(pair.client);
            write(mr, target, 7, pattern(1 << 20, 11));
            assertTrue(state(pair.server).contains("copied 1,"), state(pair.server));
            assertTrue(writes(pair.client) - before <= 2, "a copied write is one header on the socket: "
                    + (writes(pair.client) - before) + " writes");
            write(mr, target, 0, pattern(65535, 12)); // below same_host_min
            MemorySegment heap = MemorySegment.ofArray(new byte[1 << 19]);
            heap.copyFrom(pattern(1 << 19, 13));
            write(mr, target, 0, heap); // a heap source has no address to name
            assertTrue(state(pair.server).contains("copied 1,"), state(pair.server));
        }
        MemorySegment heapTarget = MemorySegment.ofArray(new byte[1 << 20]);
        try (MemoryRegion mr = pair.server.domain.registerMemory(heapTarget, Access.REMOTE_WRITE, 0xC2L)) {
            write(mr, heapTarget, 100, pattern(1 << 19, 14)); // into heap memory through the target's scratch
            assertTrue(state(pair.server).contains("copied 2,"), state(pair.server));
        }
    }

    /**
     * Writes the buffers {@code src} gathered into the ranges {@code (offset, len)} pairs name, with CQ data, and
     * checks the bytes and the target's completion.
     */
    private void writeGathered(MemoryRegion mr, MemorySegment target, MemorySegment[] src, long... ranges) {
        RmaMsg m = new RmaMsg();
        m.iov = src;
        m.iovCount = src.length;
        m.context = "writev";
        m.data = 0x6E;
        m.rmaIovCount = ranges.length / 2;
        for (int i = 0; i < m.rmaIovCount; i++) {
            m.rmaIov[i].set(ranges[2 * i], ranges[2 * i + 1], mr.key());
        }
        assertEquals(0, pair.client.ep.writemsg(m, OpFlags.REMOTE_CQ_DATA));
        assertEquals("writev", pair.client.waitCq(10_000).context);
        CqEntry remote = pair.server.waitCq(10_000);
        assertEquals(0x6EL, remote.data);
        MemorySegment sent = arena.allocate(remote.len);
        long at = 0;
        for (MemorySegment s : src) {
            sent.asSlice(at, s.byteSize()).copyFrom(s);
            at += s.byteSize();
        }
        at = 0;
        for (int i = 0; i < ranges.length; i += 2) {
            assertEquals(-1, sent.asSlice(at, ranges[i + 1]).mismatch(target.asSlice(ranges[i], ranges[i + 1])),
                    "range " + i / 2);
            at += ranges[i + 1];
        }
        assertEquals(at, sent.byteSize());
    }

    @Test
    void largeWritesFromSeveralNativeBuffersAreCopiedWhenTheirRangesFitOneHeader() {
        MemorySegment target = arena.allocate(1 << 20, 64);
        try (MemoryRegion mr = pairWithWriteTarget(target, 0xC5L)) {
            long before = writes(pair.client);
            // three sources into one range, then two into two ranges whose boundaries fall elsewhere
            writeGathered(mr, target, new MemorySegment[] {pattern(40_000, 21), pattern(70_001, 22),
                    pattern(30_000, 23)}, 1000, 140_001);
            writeGathered(mr, target, new MemorySegment[] {pattern(100_000, 24), pattern(50_000, 25)},
                    300_000, 60_000, 500_000, 90_000);
            assertTrue(state(pair.server).contains("copied 2,"), state(pair.server));
            assertTrue(writes(pair.client) - before <= 4, "each copied write is one header on the socket: "
                    + (writes(pair.client) - before) + " writes");
            // five ranges in all do not fit one header, and a heap buffer has no address to name: the socket
            writeGathered(mr, target, new MemorySegment[] {pattern(100_000, 26), pattern(50_000, 27)},
                    0, 50_000, 200_000, 50_000, 600_000, 50_000);
            MemorySegment heap = MemorySegment.ofArray(new byte[80_000]);
            heap.copyFrom(pattern(80_000, 28));
            writeGathered(mr, target, new MemorySegment[] {pattern(80_000, 29), heap}, 700_000, 160_000);
            assertTrue(state(pair.server).contains("copied 2,"), state(pair.server));
        }
    }

    @Test
    void aLargeWriteWithABadKeyStillFailsAtTheInitiator() {
        MemorySegment target = arena.allocate(1 << 20, 64);
        try (MemoryRegion mr = pairWithWriteTarget(target, 0xC3L)) {
            assertEquals(0, pair.client.ep.write(pattern(1 << 19, 15), null, 0, 0, mr.key() + 1, "bad"));
            CqErrEntry err = pair.client.waitCqError(10_000);
            assertEquals("bad", err.context);
            assertEquals(Errno.ENOKEY, pair.server.waitEqError(10_000).err);
            assertTrue(state(pair.server).contains("copied 0,"), state(pair.server));
            assertEquals(0L, target.get(ValueLayout.JAVA_LONG, 0), "nothing written");
        }
    }

    @Test
    void aWriteSourceFreedBeforeTheTargetCopiesFailsTheWriteAndTheTargetSurvives() {
        try (MemoryRegion mr = pairWithWriteTarget(arena.allocate(1 << 20, 64), 0xC4L)) {
            // large enough that malloc maps it on its own, so freeing it unmaps it
            Arena sourceArena = Arena.ofShared();
            MemorySegment source = sourceArena.allocate(64L << 20, 4096).asSlice(0, 1 << 20);
            assertEquals(0, pair.client.ep.write(source, null, 0, 0, mr.key(), "freed"));
            sourceArena.close(); // against fi_write(3): the buffer must stay until the write completes
            EqErrEntry why = pair.server.waitEqError(10_000);
            assertEquals(Errno.EFAULT, why.err, String.valueOf(why.err));
            CqErrEntry err = pair.client.waitCqError(10_000);
            assertEquals("freed", err.context);
            assertTrue(state(pair.server).contains("copied 0,"), state(pair.server));
        }
    }

    @Test
    void aLargeReadWithABadKeyStillFailsAtTheInitiator() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        roundTrip(pattern(64, 0), arena.allocate(64));
        MemorySegment target = pattern(1 << 20, 8);
        try (MemoryRegion mr = pair.server.domain.registerMemory(target, Access.REMOTE_READ, 0xB3L)) {
            assertEquals(0, pair.client.ep.read(arena.allocate(1 << 19), null, 0, 0, mr.key() + 1, "bad"));
            CqErrEntry err = pair.client.waitCqError(10_000);
            assertEquals("bad", err.context);
            assertEquals(Errno.ENOKEY, pair.server.waitEqError(10_000).err);
            assertTrue(state(pair.server).contains("reads lent 0)"), state(pair.server));
        }
    }

    @Test
    void targetMemoryGoneBeforeTheCopyFailsTheReadAtTheInitiator() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        roundTrip(pattern(64, 0), arena.allocate(64));
        // large enough that malloc maps it on its own, so freeing it unmaps it
        Arena targetArena = Arena.ofShared();
        MemorySegment target = targetArena.allocate(64L << 20, 4096);
        MemoryRegion mr = pair.server.domain.registerMemory(target, Access.REMOTE_READ, 0xB4L);
        try {
            assertEquals(0, pair.client.ep.read(arena.allocate(1 << 20), null, 0, 0, mr.key(), "gone"));
            CqEntry[] none = {new CqEntry()};
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!state(pair.server).contains("reads lent 1)")) { // only the target progresses
                pair.server.cq.read(none, 1);
                assertTrue(System.nanoTime() < deadline, state(pair.server));
            }
            targetArena.close();
            CqErrEntry err = pair.client.waitCqError(10_000);
            assertEquals("gone", err.context);
            EqErrEntry why = pair.client.waitEqError(10_000);
            assertEquals(Errno.EFAULT, why.err, String.valueOf(why.err));
        } finally {
            mr.close();
        }
    }
}
