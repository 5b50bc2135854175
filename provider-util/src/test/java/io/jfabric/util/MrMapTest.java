package io.jfabric.util;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MrMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class MrMapTest {

    @Test
    void userKeysAndDuplicates() {
        MrMap map = new MrMap(0, 8);
        MemorySegment seg = MemorySegment.ofArray(new byte[64]);
        UtilMemoryRegion a = map.register(seg, Access.REMOTE_READ, 0, 42, null);
        assertEquals(42, a.key());
        assertSame(a, map.find(42));
        var dup = assertThrows(FabricException.class, () -> map.register(seg, Access.REMOTE_READ, 0, 42, null));
        assertEquals(Errno.ENOKEY, dup.errno());
        assertTrue(dup.getMessage().contains("already in use"));
        a.close();
        assertNull(map.find(42));
        UtilMemoryRegion again = map.register(seg, Access.REMOTE_READ, 0, 42, null);
        assertSame(again, map.find(42), "a closed key can be registered again");
    }

    @Test
    void keySizeAndNotAvailKeyAreRejected() {
        MrMap map = new MrMap(0, 2);
        MemorySegment seg = MemorySegment.ofArray(new byte[8]);
        assertEquals(Errno.EKEYREJECTED, assertThrows(FabricException.class,
                () -> map.register(seg, Access.ALL, 0, 0x10000, null)).errno());
        assertEquals(Errno.EKEYREJECTED, assertThrows(FabricException.class,
                () -> map.register(seg, Access.ALL, 0, -1L, null)).errno());
        assertEquals(0xffff, map.register(seg, Access.ALL, 0, 0xffff, null).key());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> map.register(seg, 1L << 40, 0, 1, null)).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> map.register(null, Access.ALL, 0, 1, null)).errno());
    }

    @Test
    void providerKeysAreUniqueAndIgnoreTheRequest() {
        MrMap map = new MrMap(MrMode.PROV_KEY, 8);
        MemorySegment seg = MemorySegment.ofArray(new byte[8]);
        UtilMemoryRegion a = map.register(seg, Access.ALL, 0, 7, null);
        UtilMemoryRegion b = map.register(seg, Access.ALL, 0, 7, null);
        assertNotEquals(a.key(), b.key());
        assertSame(a, map.find(a.key()));
        assertSame(b, map.find(b.key()));
        assertEquals(2, map.size());
    }

    @Test
    void hardwareAssignedKeysAreCheckedForUniqueness() {
        MrMap map = new MrMap(MrMode.PROV_KEY | MrMode.VIRT_ADDR, 4);
        MemorySegment seg = MemorySegment.ofArray(new byte[8]);
        UtilMemoryRegion a = map.registerAssigned(seg, Access.REMOTE_READ, 0, 0x1234, "ctx");
        assertSame(a, map.find(0x1234));
        assertEquals("ctx", a.context());
        assertEquals(Errno.ENOKEY, assertThrows(FabricException.class,
                () -> map.registerAssigned(seg, Access.REMOTE_READ, 0, 0x1234, null)).errno());
        a.close();
        assertNull(map.find(0x1234));
    }

    @Test
    void offsetAddressingChecksAccessAndBounds() {
        MrMap map = new MrMap(0, 8);
        MemorySegment seg = MemorySegment.ofArray(new byte[100]);
        UtilMemoryRegion mr = map.register(seg, Access.REMOTE_READ, 0, 5, null);
        assertEquals(0, map.verify(5, 0, 100, Access.REMOTE_READ));
        assertEquals(10, mr.resolve(10, 90, Access.REMOTE_READ));
        assertEquals(100, mr.resolve(100, 0, Access.REMOTE_READ), "an empty access at the end is in range");
        assertEquals(-Errno.EINVAL, map.verify(5, 10, 91, Access.REMOTE_READ));
        assertEquals(-Errno.EINVAL, map.verify(5, 101, 0, Access.REMOTE_READ));
        assertEquals(-Errno.EINVAL, map.verify(5, -1, 1, Access.REMOTE_READ));
        assertEquals(-Errno.EINVAL, map.verify(5, 50, Long.MAX_VALUE, Access.REMOTE_READ), "overflow rejected");
        assertEquals(-Errno.EINVAL, map.verify(5, 50, -1, Access.REMOTE_READ));
        assertEquals(-Errno.EACCES, map.verify(5, 0, 10, Access.REMOTE_WRITE));
        assertEquals(-Errno.EACCES, map.verify(5, 0, 10, Access.REMOTE_READ | Access.REMOTE_WRITE));
        assertEquals(-Errno.ENOKEY, map.verify(6, 0, 10, Access.REMOTE_READ));
        mr.close();
        assertEquals(-Errno.ENOKEY, map.verify(5, 0, 10, Access.REMOTE_READ), "a closed key fails");
        assertEquals(-Errno.ENOKEY, mr.resolve(0, 10, Access.REMOTE_READ));
    }

    @Test
    void registrationOffsetShiftsRemoteAddresses() {
        MrMap map = new MrMap(0, 8);
        MemorySegment seg = MemorySegment.ofArray(new byte[100]);
        UtilMemoryRegion mr = map.register(seg, Access.REMOTE_WRITE, 1000, 1, null);
        assertEquals(1000, mr.remoteBase());
        assertEquals(0, mr.resolve(1000, 100, Access.REMOTE_WRITE));
        assertEquals(50, mr.resolve(1050, 50, Access.REMOTE_WRITE));
        assertEquals(-Errno.EINVAL, mr.resolve(999, 1, Access.REMOTE_WRITE));
        assertEquals(-Errno.EINVAL, mr.resolve(1050, 51, Access.REMOTE_WRITE));
    }

    @Test
    void virtualAddressingUsesTheSegmentAddress() {
        MrMap map = new MrMap(MrMode.VIRT_ADDR | MrMode.PROV_KEY, 8);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(4096);
            UtilMemoryRegion mr = map.register(seg, Access.REMOTE_READ | Access.REMOTE_WRITE, 0, 0, null);
            long va = seg.address();
            assertEquals(va, mr.remoteBase());
            assertEquals(0, map.verify(mr.key(), va, 4096, Access.REMOTE_WRITE));
            assertEquals(128, mr.resolve(va + 128, 64, Access.REMOTE_READ));
            assertEquals(-Errno.EINVAL, mr.resolve(va - 1, 1, Access.REMOTE_READ));
            assertEquals(-Errno.EINVAL, mr.resolve(0, 1, Access.REMOTE_READ), "offset 0 is not a VA");
            assertEquals(-Errno.EINVAL, mr.resolve(va + 4000, 97, Access.REMOTE_READ));
        }
    }

    @Test
    void manyKeysStayFindableAcrossGrowthAndRemoval() {
        MrMap map = new MrMap(0, 8);
        MemorySegment seg = MemorySegment.ofArray(new byte[8]);
        UtilMemoryRegion[] mrs = new UtilMemoryRegion[500];
        for (int i = 0; i < mrs.length; i++) {
            mrs[i] = map.register(seg, Access.ALL, 0, i * 7919L, null);
        }
        for (int i = 0; i < mrs.length; i += 2) {
            mrs[i].close();
        }
        for (int i = 0; i < mrs.length; i++) {
            assertEquals(i % 2 == 0 ? null : mrs[i], map.find(i * 7919L), "key " + i * 7919L);
        }
        assertEquals(250, map.size());
    }

    @Test
    void lookupDoesNotAllocate() {
        MrMap map = new MrMap(0, 8);
        MemorySegment seg = MemorySegment.ofArray(new byte[1024]);
        for (int i = 0; i < 64; i++) {
            map.register(seg, Access.ALL, 0, 1000 + i, null);
        }
        Runnable r = () -> {
            long sum = 0;
            for (int i = 0; i < 100_000; i++) {
                sum += map.verify(1000 + (i & 63), i & 511, 16, Access.REMOTE_READ);
                sum += map.verify(5, 0, 1, Access.REMOTE_READ);
            }
            if (sum != -100_000L * Errno.ENOKEY) {
                throw new AssertionError("unexpected verify results: " + sum);
            }
        };
        r.run();
        long bytes = Allocations.bytesDuring(r);
        assertTrue(bytes < 1024, "allocated " + bytes);
    }

    @Test
    void concurrentReadersSeeConsistentTableWhileRegistering() throws Exception {
        MrMap map = new MrMap(0, 8);
        MemorySegment seg = MemorySegment.ofArray(new byte[16]);
        UtilMemoryRegion stable = map.register(seg, Access.ALL, 0, 1, null);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger bad = new java.util.concurrent.atomic.AtomicInteger();
        Thread reader = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                if (map.find(1) != stable) {
                    bad.incrementAndGet();
                }
            }
        });
        for (int i = 0; i < 2000; i++) {
            map.register(seg, Access.ALL, 0, 100 + i, null).close();
        }
        stop.set(true);
        reader.join();
        assertEquals(0, bad.get());
    }

    @Test
    void aRegionOfSeveralSegmentsIsAddressedAsTheirConcatenation() {
        MrMap map = new MrMap(0, 8);
        MemorySegment one = MemorySegment.ofArray(new byte[100]);
        MemorySegment two = MemorySegment.ofArray(new byte[50]);
        MemorySegment unused = MemorySegment.ofArray(new byte[7]);
        Object context = new Object();
        io.jfabric.MrAttr attr = new io.jfabric.MrAttr(Access.REMOTE_WRITE, 9, one, two, unused);
        attr.iovCount = 2;
        attr.offset = 1000;
        attr.context = context;
        UtilMemoryRegion mr = map.register(attr);
        assertEquals(150, mr.length(), "only iovCount segments count");
        assertEquals(2, mr.segmentCount());
        assertSame(context, mr.context());
        assertArrayEquals(new MemorySegment[] {one, two}, mr.segments());
        assertNotSame(mr.segments(), mr.segments(), "callers get copies, the data path keeps its own");
        assertEquals(120, mr.resolve(1120, 30, Access.REMOTE_WRITE), "an offset in the second segment");
        assertEquals(1, mr.segmentIndex(120));
        assertEquals(100, mr.segmentStart(1));
        assertEquals(0, mr.segmentIndex(99));
        assertEquals(1, mr.segmentIndex(100), "a segment's first byte belongs to it");
        assertEquals(1, mr.segmentIndex(150), "the end belongs to the last segment");
        assertEquals(90, mr.resolve(1090, 60, Access.REMOTE_WRITE), "a range across the boundary up to the end");
        assertEquals(-Errno.EINVAL, mr.resolve(1090, 61, Access.REMOTE_WRITE), "one byte past the concatenation");
        assertEquals(-Errno.EACCES, mr.resolve(1000, 1, Access.REMOTE_READ), "access is checked for the region");
        assertEquals(0, map.verify(9, 1149, 1, Access.REMOTE_WRITE));
    }

    @Test
    void aBadIovIsRefused() {
        MrMap map = new MrMap(0, 8);
        MemorySegment seg = MemorySegment.ofArray(new byte[8]);
        io.jfabric.MrAttr empty = new io.jfabric.MrAttr(Access.ALL, 1);
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> map.register(empty)).errno());
        io.jfabric.MrAttr tooMany = new io.jfabric.MrAttr(Access.ALL, 1, seg);
        tooMany.iovCount = 2;
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> map.register(tooMany)).errno());
        io.jfabric.MrAttr withNull = new io.jfabric.MrAttr(Access.ALL, 1, seg, null);
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> map.register(withNull)).errno());
        io.jfabric.MrAttr device = new io.jfabric.MrAttr(Access.ALL, 1, seg);
        device.iface = 1;
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> map.register(device)).errno());
        assertEquals(0, map.size(), "nothing was registered");
    }

    @Test
    void virtualAddressesOfSeveralSegmentsStartAtTheFirstSegment() {
        try (Arena arena = Arena.ofConfined()) {
            MrMap map = new MrMap(MrMode.VIRT_ADDR, 8);
            MemorySegment one = arena.allocate(64);
            MemorySegment two = arena.allocate(64);
            UtilMemoryRegion mr = map.register(new io.jfabric.MrAttr(Access.REMOTE_READ, 3, one, two));
            assertEquals(one.address(), mr.remoteBase());
            assertEquals(70, mr.resolve(one.address() + 70, 10, Access.REMOTE_READ));
            assertEquals(-Errno.EINVAL, mr.resolve(one.address() + 120, 10, Access.REMOTE_READ));
        }
    }
}
