package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fi_rma(3): write and read through a valid key, fi_inject_write, and the three ways to be refused (unknown
 * key, range outside the region, key without the access). A refusal is an error completion at the initiator,
 * and the target's memory stays as it was.
 */
@Timeout(60)
class RmaTest {
    static final long T = 20_000;
    static final int LEN = 64 * 1024;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void writeThenReadBackThroughAValidKey(FabricCase c) {
        Gate.rma(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, LEN);
            Mem.fill(target, (byte) 0);
            MemoryRegion mr = p.b.register(target, Access.REMOTE_READ | Access.REMOTE_WRITE);
            MemorySegment src = Mem.alloc(arena, LEN);
            Mem.fill(src, 101);
            p.poller.post("fi_write", () -> p.a.ep.write(src, p.a.desc(src), p.a.peer, p.b.remoteAddr(mr, 0), mr.key(), "w"));
            CqEntry we = p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_write");
            assertSame("w", we.context);
            assertTrue((we.flags & OpFlags.WRITE) != 0 && (we.flags & OpFlags.RMA) != 0, "FI_RMA|FI_WRITE: " + we);
            // a (transmit-complete) write's completion does not promise the data has landed yet: give the
            // target's progress a bounded time to apply it
            long until = System.nanoTime() + T * 1_000_000L;
            while (Mem.mismatch(target, 101) != -1 && System.nanoTime() < until) {
                p.poller.drive();
            }
            assertEquals(-1, Mem.mismatch(target, 101), "target after fi_write");

            MemorySegment back = Mem.alloc(arena, LEN / 2);
            Mem.fill(back, (byte) 0);
            long off = LEN / 4;
            p.poller.post("fi_read", () -> p.a.ep.read(back, p.a.desc(back), p.a.peer, p.b.remoteAddr(mr, off), mr.key(), "r"));
            CqEntry re = p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_read");
            assertSame("r", re.context);
            assertTrue((re.flags & OpFlags.READ) != 0, "FI_READ: " + re);
            assertEquals(-1, back.mismatch(target.asSlice(off, LEN / 2)), "data read from offset " + off);
        }
    }

    /**
     * fi_inject_write: the source buffer is the caller's again when the call returns, so bytes overwritten right
     * after it must not reach the target; the write lands where it was aimed and writes no completion.
     */
    @ForEachFabric
    void anInjectWriteLandsWithoutACompletionAndFreesItsBufferAtOnce(FabricCase c) {
        Gate.rma(c);
        int len = (int) Math.min(c.info().txAttr.injectSize, 64);
        Gate.require(len > 0, c, "has inject_size 0, so fi_inject_write carries nothing");
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, 4096);
            Mem.fill(target, (byte) 0);
            MemoryRegion mr = p.b.register(target, Access.REMOTE_WRITE);
            MemorySegment src = Mem.alloc(arena, len);
            Mem.fill(src, 57);
            p.poller.post("fi_inject_write", () -> p.a.ep.injectWrite(src, p.a.peer, p.b.remoteAddr(mr, 128), mr.key()));
            Mem.fill(src, (byte) 0x5A);
            MemorySegment landed = target.asSlice(128, len);
            long until = System.nanoTime() + T * 1_000_000L;
            while (Mem.mismatch(landed, 57) != -1 && System.nanoTime() < until) {
                p.poller.drive();
            }
            assertEquals(-1, Mem.mismatch(landed, 57), "the injected bytes as they were when the call returned");
            assertEquals(-1, Mem.mismatch(target.asSlice(0, 128), (byte) 0), "nothing before the range");
            assertEquals(-1, Mem.mismatch(target.asSlice(128 + len, 4096 - 128 - len), (byte) 0), "nothing after it");
            p.poller.expectQuiet(p.a.txCq, 200, "fi_inject_write");
        }
    }

    @ForEachFabric
    void writeWithAWrongKeyFailsAndLeavesTheTargetAlone(FabricCase c) {
        Gate.rma(c);
        refusedWrite(c, Access.REMOTE_READ | Access.REMOTE_WRITE, (mr, p) -> mr.key() ^ 0x5A5A00L, 0, LEN,
                "a key that was never registered");
    }

    @ForEachFabric
    void writeBeyondTheRegionFailsAndLeavesTheTargetAlone(FabricCase c) {
        Gate.rma(c);
        refusedWrite(c, Access.REMOTE_READ | Access.REMOTE_WRITE, (mr, p) -> mr.key(), LEN / 2, LEN,
                "a range that runs past the end of the region");
    }

    @ForEachFabric
    void writeThroughAReadOnlyKeyFailsAndLeavesTheTargetAlone(FabricCase c) {
        Gate.rma(c);
        refusedWrite(c, Access.REMOTE_READ, (mr, p) -> mr.key(), 0, LEN, "a key registered for FI_REMOTE_READ only");
    }

    @ForEachFabric
    void readThroughAWriteOnlyKeyFails(FabricCase c) {
        Gate.rma(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, LEN);
            Mem.fill(target, 44);
            MemoryRegion mr = p.b.register(target, Access.REMOTE_WRITE);
            MemorySegment dst = Mem.alloc(arena, LEN);
            Mem.fill(dst, (byte) 0x11);
            p.poller.post("fi_read", () -> p.a.ep.read(dst, p.a.desc(dst), p.a.peer, p.b.remoteAddr(mr, 0), mr.key(), "bad-read"));
            CqErrEntry err = p.poller.expectError(p.a.txCq, T, "fi_read through a key without FI_REMOTE_READ");
            assertSame("bad-read", err.context);
            assertTrue(err.err != 0, "error completion carries an errno: " + err);
            assertEquals(-1, Mem.mismatch(target, 44), "target untouched");
            assertEquals(-1, Mem.mismatch(dst, (byte) 0x11), "no target data landed in the initiator's buffer");
        }
    }

    private interface KeyChoice {
        long key(MemoryRegion mr, EndpointPair p);
    }

    private void refusedWrite(FabricCase c, long access, KeyChoice keyChoice, long offset, int len, String what) {
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, LEN);
            Mem.fill(target, 44);
            MemoryRegion mr = p.b.register(target, access);
            RefusedWrite.check(c, p, arena, p.b.remoteAddr(mr, offset), len, keyChoice.key(mr, p), what);
            assertEquals(-1, Mem.mismatch(target, 44), "target untouched after a write through " + what);
        }
    }
}
