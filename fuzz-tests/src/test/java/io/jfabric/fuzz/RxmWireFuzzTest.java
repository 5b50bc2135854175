package io.jfabric.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfabric.provider.rxm.wire.CmData;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.provider.rxm.wire.RxmPacket;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded mutational fuzzing of the ofi_rxm wire decoders: the CM data parser (connect, accept, reject)
 * seeded with the captured libfabric 1.17 connect data, and the rxm packet header plus the rendezvous
 * header the receive path reads (RxmEndpoint checks the size, ctrl and op versions, then the rendezvous
 * iov total). Inputs sit in segments of exactly their length, so an overrun is an exception.
 */
class RxmWireFuzzTest {
    private static final int ITERATIONS = 150_000;
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(6);

    @Test
    @Timeout(5)
    void capturedConnectDataDecodesAndVerifies() {
        Map<String, byte[]> corpus = Corpus.load("rxm");
        CmData.Connect c = CmData.Connect.decode(corpus.get("cm-connect.hex"));
        assertNotNull(c);
        assertEquals(16384, c.eagerLimit());
        assertEquals(4096, c.rxSize());
        assertEquals(0x9139, c.port());
        assertNull(c.mismatch(16384), "the captured connect data must be acceptable");
        assertNotNull(CmData.Accept.decode(corpus.get("cm-accept.hex")));
        assertEquals(CmData.REJECT_ECONNREFUSED, CmData.Reject.decode(corpus.get("cm-reject.hex")).reason());
    }

    @Test
    @Timeout(20)
    void mutatedCmDataIsParsedOrRefusedWithoutEscapingExceptions() {
        byte[][] seeds = Corpus.load("rxm").values().toArray(byte[][]::new);
        long deadline = System.nanoTime() + BUDGET_NANOS;
        int run = 0;
        int mismatches = 0;
        for (long seed = 1; seed <= ITERATIONS && System.nanoTime() < deadline; seed++, run++) {
            byte[] input = Mutator.mutate(seeds[(int) (seed % seeds.length)], seed);
            try {
                CmData.Connect c = CmData.Connect.decode(input);
                if (input.length < CmData.CONNECT_SIZE) {
                    assertNull(c, "short connect data must decode as null");
                } else {
                    assertNotNull(c);
                    String why = c.mismatch(16384);
                    if (why != null) {
                        mismatches++;
                        assertTrue(!why.isBlank(), "mismatch without a reason");
                    } else {
                        assertEquals(CmData.CM_DATA_VERSION, c.version());
                        assertEquals(16384, c.eagerLimit());
                    }
                }
                CmData.Accept a = CmData.Accept.decode(input);
                assertEquals(input.length < CmData.ACCEPT_SIZE, a == null);
                CmData.Reject r = CmData.Reject.decode(input);
                assertNotNull(r);
                assertEquals(CmData.CM_DATA_VERSION, r.version(), "a reject of a foreign version must read as refused");
            } catch (Throwable t) {
                fail("seed " + seed + " input [" + Mutator.hex(input) + "]: " + t, t);
            }
        }
        assertTrue(run >= 10_000, "fuzz pass too short: " + run);
        assertTrue(mismatches > 0, "no mutated connect data was ever refused");
    }

    @Test
    @Timeout(20)
    void mutatedPacketsAreRejectedOrReadInsideTheirBounds() {
        List<byte[]> seeds = packetSeeds();
        long deadline = System.nanoTime() + BUDGET_NANOS;
        int run = 0;
        for (long seed = 1; seed <= ITERATIONS && System.nanoTime() < deadline; seed++, run++) {
            byte[] input = Mutator.mutate(seeds.get((int) (seed % seeds.size())), seed);
            try {
                checkPacket(input);
            } catch (Throwable t) {
                fail("seed " + seed + " input [" + Mutator.hex(input) + "]: " + t, t);
            }
        }
        assertTrue(run >= 10_000, "fuzz pass too short: " + run);
    }

    /** Regression: two rendezvous lengths of 2^63 and 2^63+16 wrapped to a total of 16. */
    @Test
    @Timeout(5)
    void rendezvousLengthsThatWrapAreRefused() {
        MemorySegment h = MemorySegment.ofArray(new byte[RndvHeader.SIZE]);
        RndvHeader.setIov(h, 0, 0, Long.MIN_VALUE, 1);
        RndvHeader.setIov(h, 1, 0, Long.MIN_VALUE + 16, 1);
        RndvHeader.setCount(h, 2);
        assertTrue(RndvHeader.totalLength(h) < 0, "wrapped iov total accepted as " + RndvHeader.totalLength(h));
    }

    /** Replays the packets in corpus/rxm-regress, each of which once got a forged rendezvous header accepted. */
    @Test
    @Timeout(5)
    void regressionPackets() {
        for (Map.Entry<String, byte[]> e : Corpus.loadMaybeEmpty("rxm-regress").entrySet()) {
            MemorySegment h = MemorySegment.ofArray(e.getValue()).asSlice(RxmPacket.SIZE, RndvHeader.SIZE);
            assertTrue(RndvHeader.totalLength(h) < 0, e.getKey() + " accepted");
            checkPacket(e.getValue());
        }
    }

    /** Mirrors what RxmEndpoint.onReceive reads of a packet, in its order, with its guards. */
    private static void checkPacket(byte[] input) {
        MemorySegment p = MemorySegment.ofArray(input);
        if (input.length < RxmPacket.SIZE) {
            return; // RxmEndpoint refuses it on length before reading a field
        }
        if (RxmPacket.ctrlVersion(p) != 4 || RxmPacket.opVersion(p) != 2) {
            return;
        }
        int type = RxmPacket.ctrlType(p);
        assertNotNull(RxmPacket.ctrlTypeName(type));
        RxmPacket.size(p);
        RxmPacket.tag(p);
        RxmPacket.data(p);
        RxmPacket.flags(p);
        RxmPacket.msgId(p);
        RxmPacket.connId(p);
        RxmPacket.segNo(p);
        RxmPacket.segSize(p);
        RxmPacket.segType(p);
        if (type == RxmPacket.CTRL_RNDV_REQ || type == RxmPacket.CTRL_RNDV_WR_DATA) {
            if (input.length < RxmPacket.SIZE + RndvHeader.SIZE) {
                return;
            }
            MemorySegment h = p.asSlice(RxmPacket.SIZE, RndvHeader.SIZE);
            long total = RndvHeader.totalLength(h);
            if (total < 0) {
                return; // refused as malformed
            }
            int n = RndvHeader.count(h);
            assertTrue(n >= 1 && n <= RndvHeader.IOV_LIMIT, "count " + n);
            long exact = 0;
            for (int i = 0; i < n; i++) {
                long len = RndvHeader.len(h, i);
                assertTrue(len >= 0, "iov " + i + " length " + len + " accepted (negative as a Java long)");
                exact = Math.addExact(exact, len);
                RndvHeader.addr(h, i);
                RndvHeader.key(h, i);
            }
            assertEquals(exact, total);
        }
    }

    private static List<byte[]> packetSeeds() {
        List<byte[]> seeds = new ArrayList<>();
        byte[] eager = new byte[RxmPacket.SIZE + 64];
        RxmPacket.write(MemorySegment.ofArray(eager), RxmPacket.CTRL_EAGER, 7, 1, RxmPacket.OP_TAGGED, 0, 64, 0, 0x4d2);
        seeds.add(eager);
        byte[] rndv = new byte[RxmPacket.SIZE + RndvHeader.SIZE];
        MemorySegment r = MemorySegment.ofArray(rndv);
        RxmPacket.write(r, RxmPacket.CTRL_RNDV_REQ, 7, 2, RxmPacket.OP_TAGGED, 0, 65536, 0, 0x4d2);
        MemorySegment h = r.asSlice(RxmPacket.SIZE);
        RndvHeader.setCount(h, 1);
        RndvHeader.setIov(h, 0, 0, 65536, 0x8000_0000L);
        seeds.add(rndv);
        byte[] rndv2 = rndv.clone();
        MemorySegment h2 = MemorySegment.ofArray(rndv2).asSlice(RxmPacket.SIZE);
        RndvHeader.setCount(h2, 4);
        for (int i = 0; i < 4; i++) {
            RndvHeader.setIov(h2, i, i * 4096L, 4096, i);
        }
        seeds.add(rndv2);
        byte[] done = new byte[RxmPacket.SIZE];
        RxmPacket.write(MemorySegment.ofArray(done), RxmPacket.CTRL_RNDV_RD_DONE, 7, 2, 0, 0, 0, 0, 0);
        seeds.add(done);
        byte[] seg = eager.clone();
        RxmPacket.setSegment(MemorySegment.ofArray(seg), 64, 1, RxmPacket.SEG_MIDDLE, 4096);
        seg[1] = RxmPacket.CTRL_SEG;
        seeds.add(seg);
        return seeds;
    }
}
