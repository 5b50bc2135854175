package io.jfabric.provider.shm;

import io.jfabric.Access;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CqEntry;
import io.jfabric.MemoryRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmAtomicTest extends ShmPairFixture {

    /** A fetching FI_SUM, an FI_CSWAP and a plain FI_SUM per round: none allocates once warm. */
    @Test
    void warmAtomicsAllocateNothing() {
        MemorySegment target = arena.allocate(64, 8);
        try (MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0, 77, 0)) {
            run(target, mr.key());
        }
    }

    private void run(MemorySegment target, long key) {
        MemorySegment one = arena.allocate(8, 8);
        one.set(ValueLayout.JAVA_LONG, 0, 1);
        MemorySegment cmp = arena.allocate(8, 8);
        MemorySegment res = arena.allocate(8, 8);
        CqEntry[] e = {new CqEntry()};
        Object ctx = "ctx";
        long[] rounds = {0};
        Runnable round = () -> {
            assertEquals(0, a.ep.fetchAtomic(one, null, res, null, aToB, 0, key, AtomicDatatype.UINT64, AtomicOp.SUM,
                    ctx));
            await(e);
            cmp.set(ValueLayout.JAVA_LONG, 0, res.get(ValueLayout.JAVA_LONG, 0) + 1);
            assertEquals(0, a.ep.compareAtomic(one, null, cmp, null, res, null, aToB, 8, key, AtomicDatatype.INT64,
                    AtomicOp.CSWAP, ctx));
            await(e);
            assertEquals(0, a.ep.atomic(one, null, aToB, 16, key, AtomicDatatype.UINT32, AtomicOp.SUM, ctx));
            await(e);
            rounds[0]++;
        };
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        long least = ThreadAllocations.leastPerWindow(round, 3, 5_000);
        assertTrue(least < 5_000 * 8, least + " bytes allocated by 5000 warm rounds of three atomics");
        assertEquals(rounds[0], target.get(ValueLayout.JAVA_LONG, 0), "fetching FI_SUM total");
        assertEquals((int) rounds[0], target.get(ValueLayout.JAVA_INT, 16), "FI_SUM total");
    }

    private void await(CqEntry[] e) {
        for (int spins = 0; spins < 10_000_000; spins++) {
            b.cq.read(e, 1);
            int n = a.cq.read(e, 1);
            if (n == 1) {
                return;
            }
            assertTrue(n == -io.jfabric.Errno.EAGAIN, "completion read returned " + n);
        }
        throw new AssertionError("no atomic completion");
    }
}
