package io.jfabric.provider.rxm;

import io.jfabric.provider.rxm.wire.CmData;
import io.jfabric.provider.rxm.wire.RndvHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.jfabric.CqEntry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The proof a peer gives before its rendezvous data is copied from its memory, and the copy's refusals. */
@Timeout(30)
class RxmSameHostTest {
    private final int self = (int) ProcessHandle.current().pid();
    private RxmSameHost sameHost;
    private Arena arena;

    @BeforeEach
    void open() {
        sameHost = RxmSameHost.open(true);
        assertNotNull(sameHost, "process_vm_readv is linked and the copy is on by default");
        arena = Arena.ofConfined();
    }

    @AfterEach
    void close() {
        sameHost.close();
        arena.close();
    }

    @Test
    void appliesOnlyOverATcpCore() {
        assertEquals(null, RxmSameHost.open(false));
    }

    @Test
    void aPeerIsTrustedOnlyWhenItsTokenReadsBack() throws Exception {
        CmData.SameHost mine = sameHost.announcement();
        assertEquals(self, mine.pid());
        assertEquals(self, sameHost.verify(mine), "this process reads its own token");
        assertEquals(0, sameHost.verify(null), "no announcement (libfabric)");
        assertEquals(0, sameHost.verify(new CmData.SameHost(self, mine.tokenAddress(), mine.token() + 1)),
                "another value at that address: a different process with our pid number, elsewhere");
        assertEquals(0, sameHost.verify(new CmData.SameHost(self, 8, mine.token())), "an unmapped address");
        Process p = new ProcessBuilder("true").start();
        long dead = p.pid();
        p.waitFor();
        assertEquals(0, sameHost.verify(new CmData.SameHost(dead, mine.tokenAddress(), mine.token())), "gone");
        assertEquals(0, sameHost.verify(new CmData.SameHost(1L << 33, mine.tokenAddress(), mine.token())));
    }

    @Test
    void copiesAcrossIovsAndRefusesWhatItCannotReach() {
        MemorySegment src1 = RxmNode.pattern(arena, 5000, 1);
        MemorySegment src2 = RxmNode.pattern(arena, 7000, 2);
        MemorySegment h = arena.allocate(RndvHeader.SIZE, 8);
        RndvHeader.setIov(h, 0, src1.address(), src1.byteSize(), 1);
        RndvHeader.setIov(h, 1, src2.address(), src2.byteSize(), 2);
        RndvHeader.setCount(h, 2);
        MemorySegment[] dst = {arena.allocate(3000), arena.allocate(9000)};
        assertTrue(sameHost.copy(self, h, dst, 2, 12_000));
        assertEquals(-1, src1.asSlice(0, 3000).mismatch(dst[0]));
        assertEquals(-1, src1.asSlice(3000).mismatch(dst[1].asSlice(0, 2000)));
        assertEquals(-1, src2.mismatch(dst[1].asSlice(2000)));

        MemorySegment[] heap = {MemorySegment.ofArray(new byte[12_000])};
        assertFalse(sameHost.copy(self, h, heap, 1, 12_000), "a heap buffer has no address to copy to");
        RndvHeader.setIov(h, 1, 8, src2.byteSize(), 2);
        assertFalse(sameHost.copy(self, h, dst, 2, 12_000), "an address the sender does not map");
        RndvHeader.setIov(h, 1, src2.address(), src2.byteSize(), 2);
        assertFalse(sameHost.copy(self, h, new MemorySegment[] {arena.allocate(20_000)}, 1, 20_000),
                "more than the sender offers");
        assertTrue(sameHost.toString().contains("copies 1, fallbacks 3"), sameHost.toString());
    }

    /** A sender in another process; with the copy off there, nothing is announced and the core carries it all. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void anotherProcessOfThisHostIsCopiedFromOnlyWhenBothSidesTakePart(boolean senderTakesPart) throws Exception {
        int count = 3;
        int size = (1 << 20) + 5;
        try (RxmNode rx = new RxmNode(); Arena shared = Arena.ofShared()) {
            MemorySegment[] bufs = new MemorySegment[count];
            for (int i = 0; i < count; i++) {
                bufs[i] = shared.allocate(size, 64);
                assertEquals(0, rx.ep.trecv(bufs[i], null, -1L, 0, -1L, bufs[i]));
            }
            Path log = Files.createTempFile("rxm-same-host-sender", ".log");
            Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED", "-Djfabric.ofi_rxm.same_host_copy=" + (senderTakesPart ? 1 : 0),
                    "-cp", System.getProperty("java.class.path"), RxmSenderMain.class.getName(),
                    HexFormat.of().formatHex(rx.name()), "0", String.valueOf(count), String.valueOf(size))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                assertTrue(RxmNode.await(() -> rx.completions.size() + rx.errors.size() >= count, 60_000, rx),
                        () -> "received " + rx.completions.size() + "/" + count + " " + rx);
                assertTrue(rx.errors.isEmpty(), rx.errors.toString());
                for (CqEntry c : rx.completions) {
                    MemorySegment b = (MemorySegment) c.context;
                    int seq = b.get(ValueLayout.JAVA_INT, 4);
                    assertEquals(size, c.len);
                    MemorySegment expected = shared.allocate(size);
                    RxmSenderMain.fill(expected, seq);
                    assertEquals(-1, expected.asSlice(8).mismatch(b.asSlice(8)), "message " + seq);
                }
                String copies = senderTakesPart ? "copies " + count + ", fallbacks 0" : "copies 0, fallbacks 0";
                assertTrue(rx.ep.toString().contains("same-host copy (" + copies + ")"), rx.ep.toString());
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "sender did not exit");
                assertEquals(0, p.exitValue(), Files.readString(log));
            } finally {
                p.destroyForcibly();
                Files.deleteIfExists(log);
            }
        }
    }
}
