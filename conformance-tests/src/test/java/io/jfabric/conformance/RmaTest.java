package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fi_rma(3): write and read through a valid key, with several buffers and ranges where rma_iov_limit allows,
 * fi_inject_write, and the three ways to be refused (unknown key, range outside the region, key without the access). A refusal is an error completion at the initiator,
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
     * fi_writemsg and fi_readmsg with two buffers and two ranges that split them differently: the bytes land in
     * order across both ranges, nothing between them is touched, and a read gathers them back.
     */
    @ForEachFabric
    void severalBuffersMoveThroughSeveralRanges(FabricCase c) {
        Gate.rma(c);
        Gate.require(c.info().txAttr.rmaIovLimit >= 2 && c.info().txAttr.iovLimit >= 2, c, "has rma_iov_limit "
                + c.info().txAttr.rmaIovLimit + " and iov_limit " + c.info().txAttr.iovLimit);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, 8192);
            Mem.fill(target, (byte) 0);
            MemoryRegion mr = p.b.register(target, Access.REMOTE_READ | Access.REMOTE_WRITE);
            MemorySegment whole = Mem.alloc(arena, 4000);
            Mem.fill(whole, 63);
            MemorySegment one = Mem.alloc(arena, 1000);
            MemorySegment two = Mem.alloc(arena, 3000);
            one.copyFrom(whole.asSlice(0, 1000));
            two.copyFrom(whole.asSlice(1000, 3000));
            RmaMsg w = twoRanges(p, mr, one, two, "writemsg");
            p.poller.post("fi_writemsg", () -> p.a.ep.writemsg(w, OpFlags.COMPLETION));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_writemsg of two buffers into two ranges");
            long until = System.nanoTime() + T * 1_000_000L;
            while ((target.asSlice(100, 2500).mismatch(whole.asSlice(0, 2500)) != -1
                    || target.asSlice(5000, 1500).mismatch(whole.asSlice(2500, 1500)) != -1)
                    && System.nanoTime() < until) {
                p.poller.drive();
            }
            assertEquals(-1, target.asSlice(100, 2500).mismatch(whole.asSlice(0, 2500)), "the first range");
            assertEquals(-1, target.asSlice(5000, 1500).mismatch(whole.asSlice(2500, 1500)), "the second range");
            assertEquals(-1, Mem.mismatch(target.asSlice(2600, 2400), (byte) 0), "nothing between the ranges");
            assertEquals(-1, Mem.mismatch(target.asSlice(0, 100), (byte) 0), "nothing before the first");

            MemorySegment first = Mem.alloc(arena, 2000);
            MemorySegment second = Mem.alloc(arena, 2000);
            RmaMsg r = twoRanges(p, mr, first, second, "readmsg");
            p.poller.post("fi_readmsg", () -> p.a.ep.readmsg(r, OpFlags.COMPLETION));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_readmsg of two ranges into two buffers");
            assertEquals(-1, first.mismatch(whole.asSlice(0, 2000)), "the first buffer read back");
            assertEquals(-1, second.mismatch(whole.asSlice(2000, 2000)), "the second buffer read back");
        }
    }

    /** Two of a's buffers against two ranges of {@code mr}: 2,500 bytes at offset 100 and 1,500 at 5,000. */
    private static RmaMsg twoRanges(EndpointPair p, MemoryRegion mr, MemorySegment one, MemorySegment two,
                                    Object context) {
        RmaMsg m = new RmaMsg(2);
        m.iov[0] = one;
        m.iov[1] = two;
        m.desc[0] = p.a.desc(one);
        m.desc[1] = p.a.desc(two);
        m.iovCount = 2;
        m.rmaIov[0].set(p.b.remoteAddr(mr, 100), 2500, mr.key());
        m.rmaIov[1].set(p.b.remoteAddr(mr, 5000), 1500, mr.key());
        m.rmaIovCount = 2;
        m.addr = p.a.peer;
        m.context = context;
        return m;
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
