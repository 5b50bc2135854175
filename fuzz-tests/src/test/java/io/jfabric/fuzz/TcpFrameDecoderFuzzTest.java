package io.jfabric.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.provider.tcp.wire.WireStatus;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded mutational fuzzing of the tcp provider's frame decoders (CM header, data base header and its
 * rma extensions), seeded with the frames captured from libfabric 1.17 (reference/wire-captures.md).
 * Each input is wrapped in a segment of exactly its own length, so any read past the input throws
 * IndexOutOfBoundsException, which this test reports with the seed and the bytes.
 */
class TcpFrameDecoderFuzzTest {
    private static final long MAX_PAYLOAD = 1L << 20;
    private static final int ITERATIONS = 150_000;
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(8);
    private static final WireOrder[] ORDERS = {WireOrder.HOST, WireOrder.NETWORK};

    private final Map<String, byte[]> corpus = Corpus.load("tcp");

    @Test
    @Timeout(10)
    void capturedFramesDecodeAsValid() {
        for (Map.Entry<String, byte[]> e : corpus.entrySet()) {
            MemorySegment s = MemorySegment.ofArray(e.getValue());
            if (e.getKey().startsWith("cm-")) {
                int expected = e.getKey().contains("connreq") ? CmMessage.TYPE_CONNREQ : CmMessage.TYPE_CONNRESP;
                assertEquals(0, CmMessage.decodeHeader(s, expected), e.getKey());
            } else {
                int rc = DataHeader.decodeBase(s, WireOrder.HOST, MAX_PAYLOAD);
                assertTrue(rc >= DataHeader.BASE_SIZE, e.getKey() + ": " + WireStatus.describe(rc));
                assertEquals(WireStatus.OK, DataHeader.decodeExtensions(s, WireOrder.HOST, MAX_PAYLOAD), e.getKey());
            }
        }
    }

    @Test
    @Timeout(20)
    void mutatedFramesAreRejectedCleanlyOrDecodeConsistently() {
        byte[][] seeds = corpus.values().toArray(byte[][]::new);
        long deadline = System.nanoTime() + BUDGET_NANOS;
        int run = 0;
        int rejected = 0;
        for (long seed = 1; seed <= ITERATIONS && System.nanoTime() < deadline; seed++, run++) {
            byte[] input = Mutator.mutate(seeds[(int) (seed % seeds.length)], seed);
            try {
                rejected += checkData(input) ? 0 : 1;
                checkCm(input);
            } catch (Throwable t) {
                fail("seed " + seed + " input [" + Mutator.hex(input) + "]: " + t, t);
            }
        }
        assertTrue(run >= 10_000, "fuzz pass too short to mean anything: " + run + " cases");
        assertTrue(rejected > run / 10, "mutations hardly ever rejected (" + rejected + "/" + run + "): decoder too lax?");
    }

    /** Replays every input that once broke a decoder (none so far; add the failing hex to corpus/tcp-regress). */
    @Test
    @Timeout(5)
    void regressionInputs() {
        for (Map.Entry<String, byte[]> e : Corpus.loadMaybeEmpty("tcp-regress").entrySet()) {
            try {
                checkData(e.getValue());
                checkCm(e.getValue());
            } catch (Throwable t) {
                fail(e.getKey() + ": " + t, t);
            }
        }
    }

    /** @return whether the frame was accepted */
    private static boolean checkData(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        boolean accepted = false;
        for (WireOrder o : ORDERS) {
            int rc = DataHeader.decodeBase(s, o, MAX_PAYLOAD);
            if (rc < 0) {
                assertClearError(rc);
                continue;
            }
            assertTrue(rc >= DataHeader.BASE_SIZE && rc <= DataHeader.MAX_HDR_SIZE && rc % 8 == 0, "hdr size " + rc);
            long payload = DataHeader.payloadLength(s, o);
            assertTrue(Long.compareUnsigned(payload, MAX_PAYLOAD) <= 0, "payload " + payload + " above the limit");
            if (input.length < rc) {
                // the reader would now read the rest of the header; the decoder must say it is short, not overrun
                if (needsExtensions(s)) {
                    assertEquals(WireStatus.BUFFER_TOO_SMALL, DataHeader.decodeExtensions(s, o, MAX_PAYLOAD));
                }
                continue;
            }
            MemorySegment header = s.asSlice(0, rc);
            int ext = DataHeader.decodeExtensions(header, o, MAX_PAYLOAD);
            if (ext != WireStatus.OK) {
                assertClearError(ext);
                continue;
            }
            accepted = true;
            if (DataHeader.isAck(header)) {
                continue; // TcpConnection handles an ACK before reading any extension (its flags are not checked)
            }
            // every accessor the receive path uses must stay inside the validated header
            DataHeader.cqData(header, o);
            DataHeader.tag(header, o);
            int op = DataHeader.op(header);
            if (op == DataHeader.OP_WRITE || op == DataHeader.OP_READ_REQ) {
                long total = 0;
                for (int i = 0; i < DataHeader.rmaIovCount(header); i++) {
                    DataHeader.rmaAddr(header, o, i);
                    DataHeader.rmaKey(header, o, i);
                    total += DataHeader.rmaLen(header, o, i);
                }
                assertTrue(Long.compareUnsigned(total, MAX_PAYLOAD) <= 0, "iov total " + total);
                if (op == DataHeader.OP_WRITE) {
                    assertEquals(payload, total, "write iov lengths vs payload");
                }
            }
        }
        return accepted;
    }

    private static boolean needsExtensions(MemorySegment s) {
        int op = DataHeader.op(s);
        return (op == DataHeader.OP_WRITE || op == DataHeader.OP_READ_REQ) && DataHeader.opData(s) != DataHeader.OP_DATA_ACK;
    }

    private static void checkCm(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        for (int expected : new int[] {CmMessage.TYPE_CONNREQ, CmMessage.TYPE_CONNRESP}) {
            int rc = CmMessage.decodeHeader(s, expected);
            if (rc < 0) {
                assertClearError(rc);
                continue;
            }
            assertTrue(rc <= CmMessage.MAX_DATA_SIZE, "cm data length " + rc);
            int type = CmMessage.type(s);
            assertTrue(type == expected || type == CmMessage.TYPE_NACK && expected == CmMessage.TYPE_CONNRESP, "type " + type);
            CmMessage.peerOrder(s);
        }
    }

    private static void assertClearError(int rc) {
        assertTrue(WireStatus.isWireError(rc), "unknown status " + rc);
        String why = WireStatus.describe(rc);
        assertTrue(why != null && !why.isBlank() && !why.equals("ok"), "status " + rc + " has no description");
        assertTrue(WireStatus.errno(rc) > 0, "status " + rc + " maps to no errno");
    }
}
