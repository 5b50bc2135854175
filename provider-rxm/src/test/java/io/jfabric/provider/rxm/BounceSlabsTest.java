package io.jfabric.provider.rxm;

import io.jfabric.provider.rxm.wire.RxmPacket;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BounceSlabsTest {

    @Test
    void buffersShareOneRegistrationPerSlabAndNeverOverlap() {
        List<MemorySegment> slabs = new ArrayList<>();
        Arena arena = Arena.ofShared();
        BounceSlabs s = new BounceSlabs(16_384 + RxmPacket.SIZE, arena, slab -> {
            slabs.add(slab);
            return null; // a core without FI_MR_LOCAL: no registration object
        });
        int n = 2 * BounceSlabs.PER_SLAB + 1;
        List<MemorySegment> bufs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            MemorySegment b = s.next();
            assertNull(s.registration());
            assertEquals(16_384 + RxmPacket.SIZE, b.byteSize());
            assertEquals(0, b.address() % 64, "buffers are cache-line aligned");
            bufs.add(b);
        }
        assertEquals(3, slabs.size(), "one registration per " + BounceSlabs.PER_SLAB + " buffers");
        for (int i = 0; i < n; i++) {
            MemorySegment b = bufs.get(i);
            MemorySegment slab = slabs.get(i / BounceSlabs.PER_SLAB);
            assertTrue(b.address() >= slab.address()
                    && b.address() + b.byteSize() <= slab.address() + slab.byteSize(), "buffer " + i + " in its slab");
            if (i > 0 && i % BounceSlabs.PER_SLAB != 0) {
                MemorySegment prev = bufs.get(i - 1);
                assertTrue(prev.address() + prev.byteSize() <= b.address(), "buffers " + (i - 1) + " and " + i + " overlap");
            }
        }
        // the endpoint's close frees the slabs at once (RxmPools.freeSlabs), not a later GC
        arena.close();
        for (MemorySegment b : bufs) {
            assertFalse(b.scope().isAlive(), "a buffer outlives its endpoint's arena");
        }
    }
}
