package io.jfabric.util;

import io.jfabric.Errno;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CmaTest {

    @Test
    void copiesWithinThisProcess() {
        assertTrue(Cma.linked(), Cma.unavailableReason());
        try (Arena a = Arena.ofConfined(); Cma cma = new Cma()) {
            MemorySegment src = a.allocate(1 << 20, 64);
            MemorySegment dst = a.allocate(1 << 20, 64);
            for (long i = 0; i < src.byteSize(); i += 8) {
                src.set(ValueLayout.JAVA_LONG, i, i * 31);
            }
            int pid = (int) ProcessHandle.current().pid();
            assertEquals(0, cma.readFully(pid, dst.address(), src.address(), src.byteSize()));
            assertEquals(-1, src.mismatch(dst));
            dst.fill((byte) 0);
            assertEquals(0, cma.writeFully(pid, src.address(), dst.address(), 4096));
            assertEquals(-1, src.asSlice(0, 4096).mismatch(dst.asSlice(0, 4096)));
            assertEquals(0, cma.probe(pid, src.address(), src.asSlice(0, 64)));
        }
    }

    @Test
    void reportsErrnoForBadPidBadAddressAndOtherBytes() throws Exception {
        try (Arena a = Arena.ofConfined(); Cma cma = new Cma()) {
            MemorySegment dst = a.allocate(64);
            Process p = new ProcessBuilder("true").start();
            int dead = (int) p.pid();
            p.waitFor();
            assertFalse(Files.exists(Path.of("/proc", Integer.toString(dead))), "pid " + dead + " was reused");
            assertEquals(-Errno.ESRCH, cma.readFully(dead, dst.address(), dst.address(), 64));
            assertEquals(-Errno.ESRCH, cma.writeFully(dead, dst.address(), dst.address(), 64));
            int self = (int) ProcessHandle.current().pid();
            assertEquals(-Errno.EFAULT, cma.readFully(self, dst.address(), 8, 64));
            assertEquals(-Errno.EFAULT, cma.writeFully(self, dst.address(), 8, 64));
            cma.localPiece(0, dst.address(), 64);
            cma.remotePiece(0, dst.address(), 64);
            assertEquals(-Errno.ESRCH, cma.readVector(dead, 1, 1));
            assertEquals(-Errno.EFAULT, cma.probe(self, 8, dst));
            MemorySegment other = a.allocate(64);
            other.fill((byte) 7);
            assertEquals(-Errno.EIO, cma.probe(self, other.address(), dst));
        }
    }

    /** Pieces on both sides whose boundaries differ, gathered by one vectored read; a partial one is resumed. */
    @Test
    void aVectoredReadGathersPiecesWhoseBoundariesDiffer() {
        try (Arena a = Arena.ofConfined(); Cma cma = new Cma()) {
            int self = (int) ProcessHandle.current().pid();
            MemorySegment src = pattern(a, 30_000, 13, 1);
            MemorySegment dst = a.allocate(30_000, 64);
            cma.remotePiece(0, src.address(), 10_000);
            cma.remotePiece(1, src.address() + 10_000, 0);
            cma.remotePiece(2, src.address() + 10_000, 20_000);
            cma.localPiece(0, dst.address(), 4_000);
            cma.localPiece(1, dst.address() + 4_000, 25_000);
            cma.localPiece(2, dst.address() + 29_000, 1_000);
            assertEquals(0, cma.readVector(self, 3, 3));
            assertEquals(-1, src.mismatch(dst));

            cma.remotePiece(0, src.address(), 10_000);
            cma.localPiece(0, dst.address(), 9_000);
            assertEquals(-Errno.EIO, cma.readVector(self, 1, 1), "sides that do not add up");

            // the kernel copies the first range, then stops at the unmapped one: the rest fails with EFAULT
            dst.fill((byte) 0);
            cma.remotePiece(0, src.address(), 4096);
            cma.remotePiece(1, 4096, 4096);
            cma.localPiece(0, dst.address(), 8192);
            assertEquals(-Errno.EFAULT, cma.readVector(self, 1, 2));
            assertEquals(-1, src.asSlice(0, 4096).mismatch(dst.asSlice(0, 4096)), "the first range arrived");
        }
    }

    @Test
    void aVectoredWriteScattersLocalPiecesIntoRemoteOnes() {
        try (Arena a = Arena.ofConfined(); Cma cma = new Cma()) {
            int self = (int) ProcessHandle.current().pid();
            MemorySegment src = pattern(a, 20_000, 7, 3);
            MemorySegment dst = a.allocate(20_000, 64);
            cma.localPiece(0, src.address(), 5_000);
            cma.localPiece(1, src.address() + 5_000, 15_000);
            cma.remotePiece(0, dst.address(), 12_000);
            cma.remotePiece(1, dst.address() + 12_000, 8_000);
            assertEquals(0, cma.vector(true, self, 2, 2));
            assertEquals(-1, src.mismatch(dst));

            cma.localPiece(0, src.address(), 100);
            cma.remotePiece(0, 4096, 100);
            assertEquals(-Errno.EFAULT, cma.vector(true, self, 1, 1), "an unmapped remote range");
        }
    }

    @Test
    void localSegmentsNameTheBytesOfABufferListFromAnOffset() {
        try (Arena a = Arena.ofConfined(); Cma cma = new Cma()) {
            int self = (int) ProcessHandle.current().pid();
            MemorySegment src = pattern(a, 9_000, 5, 11);
            MemorySegment[] list = {a.allocate(3_000), a.allocate(0), a.allocate(4_000), a.allocate(5_000)};
            // bytes [2_000, 10_000) of the list: the last 1_000 of the first buffer, all of the third, 3_000 of the last
            assertEquals(3, cma.localSegments(list, list.length, 2_000, 8_000));
            cma.remotePiece(0, src.address(), 8_000);
            assertEquals(0, cma.readVector(self, 3, 1));
            assertEquals(-1, src.asSlice(0, 1_000).mismatch(list[0].asSlice(2_000, 1_000)));
            assertEquals(-1, src.asSlice(1_000, 4_000).mismatch(list[2]));
            assertEquals(-1, src.asSlice(5_000, 3_000).mismatch(list[3].asSlice(0, 3_000)));

            assertEquals(-1, cma.localSegments(list, list.length, 2_000, 11_000), "past the list's end");
            MemorySegment[] withHeap = {list[0], MemorySegment.ofArray(new byte[100])};
            assertEquals(1, cma.localSegments(withHeap, 2, 0, 3_000), "the heap buffer is not touched");
            assertEquals(-1, cma.localSegments(withHeap, 2, 0, 3_001), "a heap buffer has no address to name");
            MemorySegment[] many = new MemorySegment[Cma.VECTOR_LIMIT + 1];
            java.util.Arrays.fill(many, list[0]);
            assertEquals(Cma.VECTOR_LIMIT, cma.localSegments(many, many.length, 0, 3_000L * Cma.VECTOR_LIMIT));
            assertEquals(-1, cma.localSegments(many, many.length, 0, 3_000L * Cma.VECTOR_LIMIT + 1), "too many pieces");
        }
    }

    /** {@code size} bytes where byte i is {@code i * step + first}. */
    private static MemorySegment pattern(Arena a, long size, int step, int first) {
        MemorySegment s = a.allocate(size, 64);
        for (long i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * step + first));
        }
        return s;
    }
}
