package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;
import io.jfabric.provider.shm.wire.Wire;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hostile ring contents and the CMA switch. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmRobustnessTest {

    @Test
    void garbageCommandsAreDroppedAndTheEndpointCarriesOn() {
        try (ShmNode a = new ShmNode(); ShmNode b = new ShmNode(); Arena arena = Arena.ofShared()) {
            long aToB = a.insert(b);
            String bName = new String(b.name(), StandardCharsets.US_ASCII).substring("fi_shm://".length());
            // a buggy or hostile process of the same user writes straight into B's ring
            try (ShmRegion foreign = ShmRegion.open(ShmRegion.DEFAULT_DIRECTORY, bName)) {
                MpscRing ring = foreign.ring();
                long at = ring.tryClaim(99, 32); // unknown command type
                ring.commit(at);
                at = ring.tryClaim(Wire.BOUNCE, Wire.HEADER); // bounce slot far out of range
                Wire.putLong(ring.buffer(), at + Wire.SENDER, ((ShmEndpoint) a.ep).senderId());
                Wire.putLong(ring.buffer(), at + Wire.LENGTH, 100);
                Wire.putLong(ring.buffer(), at + Wire.ADDRESS, 1L << 40);
                ring.commit(at);
                at = ring.tryClaim(Wire.INLINE, Wire.HEADER + 8); // claims more bytes than it carries
                Wire.putInt(ring.buffer(), at + Wire.INLINE_LENGTH, 1 << 30);
                ring.commit(at);
                at = ring.tryClaim(Wire.ACK, 4); // too short to be an ACK
                ring.commit(at);
                // an inline record that really carries more than any receiver's unexpected buffer holds
                int oversize = ShmParams.layout().bounceSlotSize() + 64;
                at = ring.tryClaim(Wire.INLINE, Wire.INLINE_HEADER + oversize);
                Wire.putLong(ring.buffer(), at + Wire.SENDER, ((ShmEndpoint) a.ep).senderId());
                Wire.putInt(ring.buffer(), at + Wire.INLINE_LENGTH, oversize);
                ring.commit(at);
            }
            MemorySegment dst = arena.allocate(64);
            assertEquals(0, b.ep.recv(dst, null, Fabrics.ADDR_UNSPEC, "r"));
            assertEquals(0, a.ep.send(arena.allocateFrom("genuine"), null, aToB, "s"));
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            assertEquals(1, b.next(e, err, 5000), () -> "no completion: " + b.ep);
            assertEquals("r", e.context);
            assertEquals("genuine", dst.getString(0));
            assertEquals(5, ((ShmEndpoint) b.ep).corruptDropped(), b.ep.toString());
        }
    }

    /**
     * An inject write's bytes travel in its command. One that says it brings more bytes than its record holds
     * writes nothing (the target would otherwise copy whatever follows the record in its ring into the region),
     * and the endpoint goes on to apply a genuine one.
     */
    @Test
    void anInjectWriteThatClaimsMoreBytesThanItCarriesWritesNothing() {
        forgedRmaWritesNothing((ring, sender, base, key, arena) -> {
            long at = ring.tryClaim(Wire.RMA_WRITE, Wire.recordPayload(Wire.RMA_HEADER + 8));
            MemorySegment s = ring.buffer();
            Wire.putLong(s, at + Wire.SENDER, sender);
            Wire.putInt(s, at + Wire.FLAGS, Wire.FLAG_INLINE_DATA);
            Wire.putLong(s, at + Wire.LENGTH, 2048);
            Wire.putLong(s, at + Wire.ADDRESS, base);
            Wire.putLong(s, at + Wire.KEY, key);
            s.asSlice(at + Wire.RMA_HEADER, 8).fill((byte) 0x66);
            ring.commit(at);
        });
    }

    /**
     * A vector RMA command lists the initiator's buffers and the target's ranges. One whose lists do not add up to its
     * length, or that lists more than four of either, writes nothing, and the endpoint goes on.
     */
    @Test
    void aVectorRmaWhoseListsDoNotAddUpWritesNothing() {
        forgedRmaWritesNothing((ring, sender, base, key, arena) -> {
            MemorySegment source = arena.allocate(256).fill((byte) 0x44);
            // {buffers, ranges, buffer bytes (the total), range bytes}
            int[][] forged = {{1, 1, 100, 200}, {1, 9, 100, 100}, {5, 1, 100, 100}};
            for (int[] f : forged) {
                long at = ring.tryClaim(Wire.RMA_WRITE, Wire.recordPayload(400));
                MemorySegment s = ring.buffer();
                Wire.putLong(s, at + Wire.SENDER, sender);
                Wire.putInt(s, at + Wire.FLAGS, Wire.FLAG_VECTOR);
                Wire.putLong(s, at + Wire.LENGTH, f[2]);
                Wire.putInt(s, at + Wire.VECTOR_LOCAL_COUNT, f[0]);
                Wire.putInt(s, at + Wire.VECTOR_REMOTE_COUNT, f[1]);
                long e = at + Wire.VECTOR_ENTRIES;
                Wire.putLong(s, e, source.address());
                Wire.putLong(s, e + 8, f[2]);
                e += (long) Math.min(f[0], 4) * Wire.VECTOR_LOCAL_ENTRY;
                Wire.putLong(s, e, base);
                Wire.putLong(s, e + 8, f[3]);
                Wire.putLong(s, e + 16, key);
                ring.commit(at);
            }
        });
    }

    /** Writes hostile commands into a target's ring, as a buggy or hostile process of the same user could. */
    private interface Forger {
        void forge(MpscRing ring, long sender, long base, long key, Arena arena);
    }

    /**
     * b's ring gets what {@code forger} writes in a's name against a region of b's, then a genuine inject write of
     * a's: the genuine bytes land, and nothing else reached the region.
     */
    private static void forgedRmaWritesNothing(Forger forger) {
        try (ShmNode a = new ShmNode(); ShmNode b = new ShmNode(); Arena arena = Arena.ofShared()) {
            long aToB = a.insert(b);
            MemorySegment target = arena.allocate(4096);
            try (MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_WRITE, 0x53)) {
                long base = (b.info.domainAttr.mrMode & io.jfabric.MrMode.VIRT_ADDR) != 0 ? target.address() : 0;
                String bName = new String(b.name(), StandardCharsets.US_ASCII).substring("fi_shm://".length());
                try (ShmRegion foreign = ShmRegion.open(ShmRegion.DEFAULT_DIRECTORY, bName)) {
                    forger.forge(foreign.ring(), ((ShmEndpoint) a.ep).senderId(), base, mr.key(), arena);
                }
                MemorySegment genuine = arena.allocate(16).fill((byte) 0x77);
                assertEquals(0, a.ep.injectWrite(genuine, aToB, base + 3000, mr.key()));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (target.get(ValueLayout.JAVA_BYTE, 3015) != 0x77 && System.nanoTime() < deadline) {
                    b.progressFor(1);
                    a.progressFor(1);
                }
                assertEquals(-1, target.asSlice(3000, 16).mismatch(genuine), "the genuine write landed");
                assertEquals(-1, target.asSlice(0, 3000).mismatch(arena.allocate(3000)),
                        "the forged commands wrote nothing");
            }
        }
    }

    /**
     * A peer found gone whose region can still be mapped (its owner marked it closed and has not yet unlinked it) is
     * mapped again as a new peer. The old one may still be held by AV entries, so it stays mapped while the domain
     * is open, and is unmapped (its pidfd closed and unwatched) when the domain closes.
     */
    @Test
    void aPeerMappedAgainAfterItWasGoneIsClosedWithTheDomain() {
        try (ShmNode a = new ShmNode()) {
            String aName = ShmAv.regionName(a.name());
            Peer first;
            try (ShmNode b = new ShmNode()) {
                ShmDomain bDomain = (ShmDomain) b.domain;
                first = bDomain.peerByName(aName);
                try (ShmRegion foreign = ShmRegion.open(ShmRegion.DEFAULT_DIRECTORY, aName)) {
                    foreign.segment().set(ValueLayout.JAVA_LONG, RegionLayout.CLOSED_OFFSET, 1L);
                }
                assertTrue(first.gone(), "a region marked closed makes its peer gone");
                Peer second = bDomain.peerByName(aName);
                assertNotSame(first, second, "a gone peer is mapped again as a new one");
                assertTrue(first.region.segment().scope().isAlive(),
                        "the replaced peer stays mapped while its domain is open");
            }
            assertFalse(first.region.segment().scope().isAlive(),
                    "the replaced peer is still mapped after its domain closed");
        }
    }

    /**
     * A live sender that is slow between claiming ring space and committing it (a fresh JVM linking its
     * VarHandles on a loaded machine) keeps its message: the receiver skips a claimed record only when a
     * sender it knows has died, or after a much longer wait. The two-JVM test lost its first message to this.
     */
    @Test
    void aLiveSendersSlowRecordIsNotSkipped() {
        try (ShmNode a = new ShmNode(); ShmNode b = new ShmNode(); Arena arena = Arena.ofShared()) {
            long aToB = a.insert(b);
            long bToA = b.insert(a);
            String bName = new String(b.name(), StandardCharsets.US_ASCII).substring("fi_shm://".length());
            MemorySegment dst = arena.allocate(64);
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            // one message first, so the slow record is not at ring position 0 (which a skip never moves past)
            assertEquals(0, b.ep.trecv(dst, null, bToA, 8, 0, "first"));
            assertEquals(0, a.ep.tinject(arena.allocateFrom("first"), aToB, 8));
            assertEquals(1, b.next(e, err, 5000), () -> "no first message: " + b.ep);
            assertEquals(0, b.ep.trecv(dst, null, bToA, 9, 0, "slow"));
            try (ShmRegion mapped = ShmRegion.open(ShmRegion.DEFAULT_DIRECTORY, bName)) {
                MpscRing ring = mapped.ring();
                int length = Wire.recordPayload(Wire.INLINE_HEADER + 8);
                long position = ring.claim(length);
                // a record behind it, so a skip has somewhere to land
                assertEquals(0, a.ep.tinject(arena.allocateFrom("next"), aToB, 10));
                // well past the 500 ms after which a record of a dead sender is skipped
                assertEquals(-Errno.EAGAIN, b.next(e, err, 1500), () -> "completed before the commit: " + b.ep);
                long at = ring.payloadOffset(position);
                MemorySegment s = ring.buffer();
                s.setString(at + Wire.INLINE_HEADER, "late");
                Wire.putLong(s, at + Wire.SENDER, ((ShmEndpoint) a.ep).senderId());
                Wire.putLong(s, at + Wire.TAG, 9);
                Wire.putInt(s, at + Wire.FLAGS, Wire.FLAG_TAGGED);
                Wire.putInt(s, at + Wire.INLINE_LENGTH, 8);
                ring.publish(position, Wire.INLINE, length);
                assertEquals(1, b.next(e, err, 5000), () -> "the slow record was skipped: " + b.ep);
                assertEquals("slow", e.context);
                assertEquals("late", dst.getString(0));
            }
        }
    }

    /**
     * A message that arrives before the receiver has inserted its sender's address is still taken by a
     * directed receive posted after the insert (the two-JVM test raced on exactly this: the child sends as soon
     * as it has printed its address).
     */
    @Test
    void aDirectedReceiveTakesAMessageThatCameBeforeItsSenderWasInserted() {
        try (ShmNode a = new ShmNode(); ShmNode b = new ShmNode(); Arena arena = Arena.ofShared()) {
            long aToB = a.insert(b);
            assertEquals(0, a.ep.tinject(arena.allocateFrom("early"), aToB, 7));
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            assertEquals(-Errno.EAGAIN, b.next(e, err, 200), "nothing completes without a receive"); // queues it
            long bToA = b.insert(a);
            MemorySegment dst = arena.allocate(64);
            assertEquals(0, b.ep.trecv(dst, null, bToA, 7, 0, "directed"));
            assertEquals(1, b.next(e, err, 5000), () -> "the early message was not matched: " + b.ep);
            assertEquals("directed", e.context);
            assertEquals(bToA, e.srcAddr);
            assertEquals("early", dst.getString(0));
        }
    }

    @Test
    void withoutCmaLargeMessagesArePulledThroughBounceSlotsAndRmaIsRefused() {
        System.setProperty("jfabric.shm.disable_cma", "true");
        try (ShmNode a = new ShmNode(); ShmNode b = new ShmNode(); Arena arena = Arena.ofShared()) {
            long aToB = a.insert(b);
            assertEquals(-Errno.EOPNOTSUPP, a.ep.write(arena.allocate(64), null, aToB, 0, 1, null));
            MemorySegment rmaTarget = arena.allocate(64);
            try (MemoryRegion mr = b.domain.registerMemory(rmaTarget, Access.REMOTE_WRITE, 0x52)) {
                long base = (b.info.domainAttr.mrMode & io.jfabric.MrMode.VIRT_ADDR) != 0 ? rmaTarget.address() : 0;
                MemorySegment bytes = arena.allocate(64).fill((byte) 0x3C);
                assertEquals(0, a.ep.injectWrite(bytes, aToB, base, mr.key()), "an inject write brings its bytes");
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (rmaTarget.mismatch(bytes) != -1 && System.nanoTime() < until) {
                    b.progressFor(1);
                    a.progressFor(1);
                }
                assertEquals(-1, rmaTarget.mismatch(bytes), "an inject write needs no CMA");
            }
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            // expected (receive first), unexpected (send first) and truncated, each far larger than the
            // 64 slots x 16 KiB the sender owns, so the pipeline has to recycle slots
            for (int round = 0; round < 3; round++) {
                int size = 3 << 20;
                MemorySegment src = arena.allocate(size);
                ShmEndpointTest.fill(src, round);
                MemorySegment dst = arena.allocate(round == 2 ? size / 2 : size);
                if (round == 0) {
                    assertEquals(0, b.ep.recv(dst, null, Fabrics.ADDR_UNSPEC, "r"));
                }
                assertEquals(0, a.ep.send(src, null, aToB, "s"));
                if (round > 0) {
                    b.progressFor(20);
                    assertEquals(0, b.ep.recv(dst, null, Fabrics.ADDR_UNSPEC, "r"));
                }
                boolean sent = false;
                boolean received = false;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!(sent && received) && System.nanoTime() < deadline) {
                    int rc = b.next(e, err, 1);
                    if (rc == 1) {
                        received = true;
                    } else if (rc == -Errno.EAVAIL) {
                        assertEquals(2, round, "only the truncated round may fail: " + err.err);
                        assertEquals(Errno.ETRUNC, err.err);
                        assertEquals(size / 2, err.olen);
                        received = true;
                    }
                    rc = a.next(e, err, 1);
                    if (rc == 1) {
                        sent = true;
                    } else if (rc == -Errno.EAVAIL) {
                        throw new AssertionError("send failed: " + err.err);
                    }
                }
                assertTrue(sent && received, "round " + round + ": " + a.ep + " / " + b.ep);
                assertEquals(-1, src.asSlice(0, dst.byteSize()).mismatch(dst), "bytes of round " + round);
            }
        } finally {
            System.clearProperty("jfabric.shm.disable_cma");
        }
    }

    @Test
    void pullsThatFindTheSendersRingFullAskAgainAndEveryMessageArrives() {
        // a 4 KiB ring holds a few dozen command records; 24 heap messages (never CMA) pulled at once ask for four
        // chunks each, more than the sender's ring takes, so pulls wait for ring space and progress resumes them
        int count = 24;
        int size = 64 << 10;
        System.setProperty("jfabric.shm.ring_size", "4096");
        try (ShmNode a = new ShmNode(); ShmNode b = new ShmNode(); Arena arena = Arena.ofShared()) {
            long aToB = a.insert(b);
            MemorySegment[] src = new MemorySegment[count];
            MemorySegment[] dst = new MemorySegment[count];
            for (int i = 0; i < count; i++) {
                src[i] = MemorySegment.ofArray(new byte[size]);
                ShmEndpointTest.fill(src[i], i);
                dst[i] = arena.allocate(size);
                assertEquals(0, b.ep.recv(dst[i], null, Fabrics.ADDR_UNSPEC, "r" + i));
            }
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            int posted = 0;
            // every RTS that fits in the receiver's ring before it progresses, so that its first progress call
            // starts that many pulls at once
            while (posted < count && a.ep.send(src[posted], null, aToB, "s" + posted) == 0) {
                posted++;
            }
            int sent = 0;
            int received = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((sent < count || received < count) && System.nanoTime() < deadline) {
                if (posted < count) {
                    int rc = a.ep.send(src[posted], null, aToB, "s" + posted);
                    if (rc == 0) {
                        posted++;
                    } else {
                        assertEquals(-Errno.EAGAIN, rc, "a send may only wait for ring space");
                    }
                }
                int rc = b.next(e, err, 0);
                assertTrue(rc != -Errno.EAVAIL, () -> "receive failed: " + err.err);
                received += rc == 1 ? 1 : 0;
                rc = a.next(e, err, 0);
                assertTrue(rc != -Errno.EAVAIL, () -> "send failed: " + err.err);
                sent += rc == 1 ? 1 : 0;
            }
            assertEquals(count, sent, () -> "sends completed; " + a.ep + " / " + b.ep);
            assertEquals(count, received, () -> "receives completed; " + a.ep + " / " + b.ep);
            for (int i = 0; i < count; i++) {
                assertEquals(-1, src[i].mismatch(dst[i]), "bytes of message " + i);
            }
            assertTrue(((ShmEndpoint) b.ep).pullsBlocked() > 0, "no pull found the sender's ring full");
        } finally {
            System.clearProperty("jfabric.shm.ring_size");
        }
    }
}
