package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.TaggedMsg;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Tagged messages on the tcp MSG endpoint (TCPX_TAGGED frames): matching, ordering, backpressure, errors. */
@Timeout(60)
class TaggedTest {
    private static final long TAGGED_RECV = OpFlags.RECV | OpFlags.TAGGED;
    private final Arena arena = Arena.ofShared();
    private Loopback pair;

    @AfterEach
    void tearDown() {
        if (pair != null) {
            pair.close();
        }
        arena.close();
    }

    private Loopback pair() {
        pair = new Loopback(false, Progress.MANUAL, null, null, CqFormat.TAGGED);
        return pair;
    }

    private MemorySegment random(long n, long seed) {
        MemorySegment s = arena.allocate(Math.max(n, 1), 64).asSlice(0, n);
        Random r = new Random(seed);
        for (long i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        return s;
    }

    private static List<FabricInfo> infos(long caps) {
        FabricInfo hints = FabricInfo.hints();
        hints.fabricAttr.provName = "tcp";
        hints.caps = caps;
        return new TcpProvider().getInfo(Fabrics.API_VERSION, "127.0.0.1", "0", Fabrics.SOURCE, hints);
    }

    @Test
    void taggedIsOfferedOnlyToHintsThatAskForIt() {
        List<FabricInfo> plain = infos(Caps.MSG);
        assertFalse(plain.isEmpty());
        assertEquals(0, plain.get(0).caps & Caps.TAGGED, "plain MSG hints must not get FI_TAGGED");
        assertEquals(0, plain.get(0).epAttr.memTagFormat);
        List<FabricInfo> tagged = infos(Caps.MSG | Caps.TAGGED);
        assertFalse(tagged.isEmpty());
        FabricInfo t = tagged.get(0);
        assertNotEquals(0, t.caps & Caps.TAGGED);
        assertNotEquals(0, t.rxAttr.caps & Caps.TAGGED);
        assertNotEquals(0, t.txAttr.caps & Caps.TAGGED);
        assertEquals(TcpProvider.TAG_GENERIC, t.epAttr.memTagFormat);
    }

    @Test
    void endpointWithoutTaggedCapRefusesTaggedCalls() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        MemorySegment b = arena.allocate(16);
        assertEquals(-Errno.ENOSYS, pair.server.ep.trecv(b, null, 0, 1, 0, "r"));
        assertEquals(-Errno.ENOSYS, pair.client.ep.tsend(b, null, 0, 1, "s"));
        assertEquals(-Errno.ENOSYS, pair.client.ep.tinject(b, 0, 1));
        // the untagged path is unaffected
        assertEquals(0, pair.server.ep.recv(b, null, 0, "r"));
        assertEquals(0, pair.client.ep.send(b, null, 0, "s"));
        assertEquals("r", pair.server.waitCq(5000).context);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 64, 4096, 65536, 1 << 20})
    void taggedSendCarriesTagAndEveryByte(int size) {
        Loopback p = pair();
        MemorySegment tx = random(size, size);
        MemorySegment rx = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
        assertEquals(0, p.server.ep.trecv(rx, null, 0, 0x4d2, 0, "rx"));
        assertEquals(0, p.client.ep.tsend(tx, null, 0, 0x4d2, "tx"));
        CqEntry r = p.server.waitCq(20_000);
        assertEquals("rx", r.context);
        assertEquals(size, r.len);
        assertEquals(TAGGED_RECV, r.flags & (TAGGED_RECV | OpFlags.MSG | OpFlags.SEND));
        assertEquals(0x4d2, r.tag);
        assertEquals(-1, rx.mismatch(tx), "payload differs");
        CqEntry t = p.client.waitCq(20_000);
        assertEquals("tx", t.context);
        assertEquals(OpFlags.SEND | OpFlags.TAGGED, t.flags);
    }

    @Test
    void postedReceivesMatchInOrderWithIgnoreMasks() {
        Loopback p = pair();
        MemorySegment a = arena.allocate(64);
        MemorySegment b = arena.allocate(64);
        MemorySegment any = arena.allocate(64);
        assertEquals(0, p.server.ep.trecv(a, null, 0, 0xA, 0, "exactA"));
        assertEquals(0, p.server.ep.trecv(b, null, 0, 0xB00, 0xFF, "maskedB"));
        assertEquals(0, p.server.ep.trecv(any, null, 0, 0, -1L, "any"));
        // 0xB12 skips exactA (tag differs) and lands in maskedB (low byte ignored), not in the later "any"
        assertEquals(0, p.client.ep.tsend(random(8, 1), null, 0, 0xB12, "s1"));
        CqEntry r1 = p.server.waitCq(5000);
        assertEquals("maskedB", r1.context);
        assertEquals(0xB12, r1.tag);
        // 0xA takes the first posted receive that matches: exactA, although "any" also would
        assertEquals(0, p.client.ep.tsend(random(8, 2), null, 0, 0xA, "s2"));
        CqEntry r2 = p.server.waitCq(5000);
        assertEquals("exactA", r2.context);
        assertEquals(0, p.client.ep.tsend(random(8, 3), null, 0, 0xC, "s3"));
        CqEntry r3 = p.server.waitCq(5000);
        assertEquals("any", r3.context);
        assertEquals(0xC, r3.tag);
    }

    @Test
    void taggedAndUntaggedQueuesAreSeparate() {
        Loopback p = pair();
        MemorySegment m = arena.allocate(64);
        MemorySegment t = arena.allocate(64);
        assertEquals(0, p.server.ep.recv(m, null, 0, "untagged"));
        assertEquals(0, p.server.ep.trecv(t, null, 0, 5, 0, "tagged"));
        assertEquals(0, p.client.ep.tsend(random(16, 4), null, 0, 5, "ts"));
        CqEntry r1 = p.server.waitCq(5000);
        assertEquals("tagged", r1.context);
        assertEquals(TAGGED_RECV, r1.flags & (TAGGED_RECV | OpFlags.MSG));
        assertEquals(0, p.client.ep.send(random(16, 5), null, 0, "s"));
        CqEntry r2 = p.server.waitCq(5000);
        assertEquals("untagged", r2.context);
        assertEquals(OpFlags.RECV | OpFlags.MSG, r2.flags & (TAGGED_RECV | OpFlags.MSG));
    }

    @Test
    void unmatchedTaggedMessageWaitsForItsReceive() {
        Loopback p = pair();
        MemorySegment tx = random(256, 6);
        MemorySegment other = arena.allocate(256);
        MemorySegment rx = arena.allocate(256);
        assertEquals(0, p.client.ep.tsend(tx, null, 0, 7, "t7"));
        assertEquals(0, p.server.ep.trecv(other, null, 0, 8, 0, "r8"));
        // nothing matches tag 7 yet: the message stays on the wire, nothing completes on the server
        CqEntry[] a = {new CqEntry()};
        long deadline = System.currentTimeMillis() + 300;
        while (System.currentTimeMillis() < deadline) {
            p.client.cq.read(a, 1);
            assertEquals(-Errno.EAGAIN, p.server.cq.read(a, 1), "a receive completed without a matching tag");
        }
        assertEquals(0, p.server.ep.trecv(rx, null, 0, 7, 0, "r7"));
        CqEntry r = p.server.waitCq(5000);
        assertEquals("r7", r.context);
        assertEquals(7, r.tag);
        assertEquals(-1, rx.mismatch(tx));
        assertEquals(0, p.client.ep.tsend(random(4, 7), null, 0, 8, "t8"));
        assertEquals("r8", p.server.waitCq(5000).context);
    }

    @Test
    void truncationReportsEtruncWithTheTag() {
        Loopback p = pair();
        MemorySegment small = arena.allocate(16);
        MemorySegment next = arena.allocate(64);
        assertEquals(0, p.server.ep.trecv(small, null, 0, 3, 0, "small"));
        assertEquals(0, p.server.ep.trecv(next, null, 0, 3, 0, "next"));
        MemorySegment tx = random(64, 8);
        assertEquals(0, p.client.ep.tsend(tx, null, 0, 3, "big"));
        CqErrEntry err = p.server.waitCqError(5000);
        assertEquals(Errno.ETRUNC, err.err);
        assertEquals("small", err.context);
        assertEquals(16, err.len);
        assertEquals(48, err.olen);
        assertEquals(3, err.tag);
        assertNotEquals(0, err.flags & OpFlags.TAGGED);
        assertEquals(-1, small.mismatch(tx.asSlice(0, 16)));
        // the stream stays in step: the next message lands whole
        MemorySegment tx2 = random(64, 9);
        assertEquals(0, p.client.ep.tsend(tx2, null, 0, 3, "ok"));
        CqEntry ok = p.server.waitCq(5000);
        assertEquals("next", ok.context);
        assertEquals(-1, next.mismatch(tx2));
    }

    @Test
    void cancelCompletesATaggedReceiveWithEcanceled() {
        Loopback p = pair();
        MemorySegment rx = arena.allocate(64);
        assertEquals(0, p.server.ep.trecv(rx, null, 0, 1, 0, "doomed"));
        assertEquals(0, p.server.ep.trecv(rx, null, 0, 1, 0, "kept"));
        assertEquals(0, p.server.ep.cancel("doomed"));
        CqErrEntry err = p.server.waitCqError(5000);
        assertEquals(Errno.ECANCELED, err.err);
        assertEquals("doomed", err.context);
        assertNotEquals(0, err.flags & OpFlags.TAGGED);
        assertEquals(-Errno.ENOENT, p.server.ep.cancel("doomed"));
        assertEquals(0, p.client.ep.tsend(random(10, 10), null, 0, 1, "s"));
        assertEquals("kept", p.server.waitCq(5000).context);
    }

    @Test
    void injectDataAndMsgVariantsCarryTagAndCqData() {
        Loopback p = pair();
        MemorySegment r1 = arena.allocate(64);
        MemorySegment r2 = arena.allocate(64);
        MemorySegment[] iov = {arena.allocate(32), arena.allocate(32)};
        assertEquals(0, p.server.ep.trecv(r1, null, 0, 0x11, 0, "r1"));
        TaggedMsg tm = new TaggedMsg();
        tm.iov = iov;
        tm.iovCount = 2;
        tm.tag = 0x22;
        tm.ignore = 0;
        tm.context = "r2";
        assertEquals(0, p.server.ep.trecvmsg(tm, 0));
        assertEquals(0, p.server.ep.trecv(r2, null, 0, 0x33, 0, "r3"));

        assertEquals(0, p.client.ep.tinjectdata(random(20, 11), 0xDA7A, 0, 0x11));
        CqEntry c1 = p.server.waitCq(5000);
        assertEquals("r1", c1.context);
        assertEquals(0x11, c1.tag);
        assertEquals(0xDA7A, c1.data);
        assertNotEquals(0, c1.flags & OpFlags.REMOTE_CQ_DATA);

        MemorySegment v = random(64, 12);
        assertEquals(0, p.client.ep.tsendv(new MemorySegment[] {v.asSlice(0, 10), v.asSlice(10, 54)}, null, 2, 0,
                0x22, "v"));
        CqEntry c2 = p.server.waitCq(5000);
        assertEquals("r2", c2.context);
        assertEquals(64, c2.len);
        assertEquals(-1, iov[0].mismatch(v.asSlice(0, 32)));
        assertEquals(-1, iov[1].mismatch(v.asSlice(32, 32)));

        assertEquals(0, p.client.ep.tinject(random(5, 13), 0, 0x33));
        CqEntry c3 = p.server.waitCq(5000);
        assertEquals("r3", c3.context);
        assertEquals(5, c3.len);
        assertEquals(0, c3.flags & OpFlags.REMOTE_CQ_DATA);
    }

    /**
     * A tagged message with remote CQ data and FI_DELIVERY_COMPLETE is ACKed: the sender completes only after
     * the receive, with its own context and FI_TAGGED | FI_SEND, and the 16-byte ACK (no cq_data, no tag
     * extension) leaves the stream aligned for the frames after it.
     */
    @Test
    void deliveryCompleteTaggedSendWithCqDataIsAckedAndTheStreamStaysAligned() {
        Loopback p = pair();
        MemorySegment payload = random(48, 21);
        TaggedMsg tm = new TaggedMsg();
        tm.iov = new MemorySegment[] {payload};
        tm.iovCount = 1;
        tm.addr = 0;
        tm.tag = 0xABCDEF;
        tm.data = 0x5EED;
        tm.context = "dc-tagged";
        assertEquals(0, p.client.ep.tsendmsg(tm, OpFlags.REMOTE_CQ_DATA | OpFlags.DELIVERY_COMPLETE));
        CqEntry[] a = {new CqEntry()};
        long deadline = System.currentTimeMillis() + 200;
        while (System.currentTimeMillis() < deadline) {
            p.server.cq.read(a, 0);
            assertNotEquals(1, p.client.cq.read(a, 1), "completed before the peer received it: " + a[0]);
        }
        MemorySegment rx = arena.allocate(64);
        assertEquals(0, p.server.ep.trecv(rx, null, 0, 0xABCDEF, 0, "r"));
        CqEntry r = p.server.waitCq(5000);
        assertEquals("r", r.context);
        assertEquals(0xABCDEF, r.tag);
        assertEquals(0x5EED, r.data);
        assertEquals(-1, rx.asSlice(0, 48).mismatch(payload));
        CqEntry s = p.client.waitCq(5000);
        assertEquals("dc-tagged", s.context);
        assertEquals(OpFlags.TAGGED | OpFlags.SEND, s.flags & (OpFlags.TAGGED | OpFlags.SEND | OpFlags.RECV));
        // frames after the ACK, both ways, still parse
        MemorySegment next = random(16, 22);
        assertEquals(0, p.server.ep.trecv(rx, null, 0, 7, 0, "r2"));
        assertEquals(0, p.client.ep.tsend(next, null, 0, 7, "s2"));
        assertEquals("r2", p.server.waitCq(5000).context);
        assertEquals(-1, rx.asSlice(0, 16).mismatch(next));
        assertEquals("s2", p.client.waitCq(5000).context);
        assertEquals(0, p.client.ep.trecv(rx, null, 0, 8, 0, "back"));
        assertEquals(0, p.server.ep.tsend(next, null, 0, 8, "back-send"));
        assertEquals("back", p.client.waitCq(5000).context);
    }
}
