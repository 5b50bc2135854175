package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;
import io.jfabric.MrMode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fi_mr(3)'s fi_mr_regattr and fi_mr_regv: a region of two separate segments is one range to peers (their
 * concatenation), RMA through it moves data across the boundary, and ranges beyond it or without the access are
 * refused; more segments than mr_iov_limit are refused; FI_MR_ENDPOINT's fi_mr_bind/fi_mr_enable work where the
 * mr_mode has it and are refused where it has not; a heap segment is registered exactly where
 * domain_attr.mrHeapSegments says so, and refused with EINVAL elsewhere.
 */
@Timeout(60)
class RegattrTest {
    static final long T = 20_000;
    /** Two segments of different sizes, so an off-by-one segment mapping shows. */
    static final int FIRST = 12 * 1024;
    static final int SECOND = 20 * 1024;

    @RegisterExtension
    final StateDump dump = new StateDump();

    private static boolean native_(FabricCase c) {
        return c.provider().startsWith("libfabric:");
    }

    private static void multiSegment(FabricCase c) {
        Gate.rma(c);
        Gate.require(c.info().domainAttr.mrIovLimit >= 2, c, "has mr_iov_limit "
                + c.info().domainAttr.mrIovLimit + "; regionsWithMoreSegmentsThanTheLimitAreRefused covers it");
    }

    private MemoryRegion regattr(Side s, long access, Object context, MemorySegment... iov) {
        MrAttr attr = new MrAttr(access, 0x5E6A0 + iov.length, iov);
        attr.context = context;
        return dump.track(s.domain.registerMemory(attr, 0));
    }

    @ForEachFabric
    void aTwoSegmentRegionTakesWritesAndReadsAcrossTheBoundary(FabricCase c) {
        multiSegment(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment one = Mem.alloc(arena, FIRST);
            MemorySegment two = Mem.alloc(arena, SECOND);
            Mem.fill(one, (byte) 0);
            Mem.fill(two, (byte) 0);
            Object context = new Object();
            MemoryRegion mr = regattr(p.b, Access.REMOTE_READ | Access.REMOTE_WRITE, context, one, two);
            assertSame(context, mr.context(), "fi_mr_regattr's context comes back from the region");
            assertEquals(FIRST + SECOND, mr.length(), "the region is as long as its segments together");
            assertArrayEquals(new MemorySegment[] {one, two}, mr.segments(), "the region's segments, in order");

            MemorySegment src = Mem.alloc(arena, FIRST + SECOND);
            Mem.fill(src, 77);
            p.poller.post("fi_write", () -> p.a.ep.write(src, p.a.desc(src), p.a.peer, p.b.remoteAddr(mr, 0), mr.key(),
                    "w"));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_write of the whole two-segment region");
            long until = System.nanoTime() + T * 1_000_000L;
            while ((one.mismatch(src.asSlice(0, FIRST)) != -1 || two.mismatch(src.asSlice(FIRST, SECOND)) != -1)
                    && System.nanoTime() < until) {
                p.poller.drive();
            }
            assertEquals(-1, one.mismatch(src.asSlice(0, FIRST)), "the first segment holds the write's first bytes");
            assertEquals(-1, two.mismatch(src.asSlice(FIRST, SECOND)), "the second segment holds the rest");

            long off = FIRST - 3000;
            MemorySegment back = Mem.alloc(arena, 7000);
            Mem.fill(back, (byte) 0);
            p.poller.post("fi_read", () -> p.a.ep.read(back, p.a.desc(back), p.a.peer, p.b.remoteAddr(mr, off),
                    mr.key(), "r"));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_read across the segment boundary");
            assertEquals(-1, back.mismatch(src.asSlice(off, 7000)), "a read across the boundary returns both pieces");
        }
    }

    @ForEachFabric
    void aRangePastATwoSegmentRegionIsRefused(FabricCase c) {
        refusedOnTwoSegments(c, Access.REMOTE_READ | Access.REMOTE_WRITE, FIRST, SECOND + 1,
                "a range that runs one byte past a two-segment region");
    }

    @ForEachFabric
    void aWriteThroughAReadOnlyTwoSegmentRegionIsRefused(FabricCase c) {
        refusedOnTwoSegments(c, Access.REMOTE_READ, FIRST - 8, 16,
                "a two-segment region registered for FI_REMOTE_READ only");
    }

    /** A write of {@code len} bytes at {@code offset} of a two-segment fi_mr_regv region is refused. */
    private void refusedOnTwoSegments(FabricCase c, long access, long offset, long len, String what) {
        multiSegment(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment one = Mem.alloc(arena, FIRST);
            MemorySegment two = Mem.alloc(arena, SECOND);
            Mem.fill(one, 44);
            Mem.fill(two, 45);
            MemoryRegion mr = dump.track(p.b.domain.registerMemory(new MemorySegment[] {one, two}, 2, access, 0,
                    0x5E6B0, 0));
            RefusedWrite.check(c, p, arena, p.b.remoteAddr(mr, offset), len, mr.key(), what);
            assertEquals(-1, Mem.mismatch(one, 44), "first segment untouched");
            assertEquals(-1, Mem.mismatch(two, 45), "second segment untouched");
        }
    }

    @ForEachFabric
    void regionsWithMoreSegmentsThanTheLimitAreRefused(FabricCase c) {
        Domain domain = OpenDomain.of(c, dump).domain();
        long limit = c.info().domainAttr.mrIovLimit;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] iov = new MemorySegment[(int) limit + 1];
            for (int i = 0; i < iov.length; i++) {
                iov[i] = Mem.alloc(arena, 4096);
            }
            FabricException e = assertThrows(FabricException.class, () -> dump.track(domain.registerMemory(iov,
                    iov.length, Access.SEND | Access.RECV, 0, 0x5E6D0, 0)), "fi_mr_regv of mr_iov_limit + 1 segments");
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            assertTrue(e.getMessage().contains("mr_iov_limit"), "the message names the limit: " + e.getMessage());
            MemoryRegion within = dump.track(domain.registerMemory(iov, (int) limit, Access.SEND | Access.RECV, 0,
                    0x5E6D0, 0));
            assertEquals(limit, within.segments().length, "mr_iov_limit segments register");
        }
    }

    @ForEachFabric
    void aHeapSegmentRegistersExactlyWhereTheInfoSaysSo(FabricCase c) {
        Domain domain = OpenDomain.of(c, dump).domain();
        MemorySegment heap = MemorySegment.ofArray(new byte[4096]);
        if (c.info().domainAttr.mrHeapSegments) {
            MemoryRegion mr = dump.track(domain.registerMemory(heap, Access.SEND | Access.RECV, 0x5E6E0));
            assertSame(heap, mr.segment(), "the heap segment is registered as given");
            return;
        }
        FabricException one = assertThrows(FabricException.class,
                () -> dump.track(domain.registerMemory(heap, Access.SEND | Access.RECV, 0x5E6E0)), "fi_mr_reg of heap");
        FabricException attr = assertThrows(FabricException.class, () -> dump.track(domain.registerMemory(
                new MrAttr(Access.SEND | Access.RECV, 0x5E6E1, heap), 0)), "fi_mr_regattr of heap");
        for (FabricException e : new FabricException[] {one, attr}) {
            assertEquals(Errno.EINVAL, e.errno(), "a heap segment is FI_EINVAL on every provider: " + e.getMessage());
            assertTrue(e.getMessage().contains("native memory only"), "the message says to use native memory: "
                    + e.getMessage());
        }
    }

    @ForEachFabric
    void bindAndEnableFollowFiMrEndpoint(FabricCase c) {
        Gate.rma(c);
        boolean endpointMr = (c.info().domainAttr.mrMode & MrMode.ENDPOINT) != 0;
        Gate.require(endpointMr || !native_(c), c, "is a native provider without FI_MR_ENDPOINT, whose own "
                + "fi_mr_bind answer the bridge passes on");
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, 8192);
            Mem.fill(target, (byte) 0);
            MemoryRegion mr = dump.track(p.b.domain.registerMemory(target, Access.REMOTE_WRITE, 0, 0x5E6F0, 0));
            if (!endpointMr) {
                FabricException bind = assertThrows(FabricException.class, () -> mr.bind(p.b.ep, 0), "fi_mr_bind");
                FabricException enable = assertThrows(FabricException.class, mr::enable, "fi_mr_enable");
                assertEquals(Errno.ENOSYS, bind.errno(), "fi_mr_bind without FI_MR_ENDPOINT: " + bind.getMessage());
                assertEquals(Errno.ENOSYS, enable.errno(), "fi_mr_enable without FI_MR_ENDPOINT: "
                        + enable.getMessage());
                return;
            }
            mr.bind(p.b.ep, 0);
            mr.enable();
            MemorySegment src = Mem.alloc(arena, 8192);
            Mem.fill(src, 91);
            p.poller.post("fi_write", () -> p.a.ep.write(src, p.a.desc(src), p.a.peer, p.b.remoteAddr(mr, 0), mr.key(),
                    "w"));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_write through a bound and enabled region");
            long until = System.nanoTime() + T * 1_000_000L;
            while (Mem.mismatch(target, 91) != -1 && System.nanoTime() < until) {
                p.poller.drive();
            }
            assertEquals(-1, Mem.mismatch(target, 91), "target after the write");
        }
    }
}
