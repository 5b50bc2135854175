package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.Domain;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * libfabric 1.17's shm offers mr_iov_limit 4, but RMA into a region of several buffers reaches only its first buffer
 * and can write past it into unrelated memory (src/test/c/regv_two_segments.c). The bridge offers shm regions of one
 * buffer and refuses more itself, with a reason, instead of handing shm a region it would corrupt memory behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmRegionSegmentsTest {
    private final LibfabricProvider provider = new LibfabricProvider();

    private List<FabricInfo> shmInfos(long mrIovLimit) {
        FabricInfo hints = Hints.create().provider("libfabric:shm").epType(EndpointType.RDM).build();
        hints.domainAttr.mrIovLimit = mrIovLimit;
        return provider.getInfo(Fabrics.API_VERSION, null, null, 0, hints);
    }

    @Test
    void shmInfosOfferOneBufferPerRegionAndHintsAskingMoreMatchNothing() {
        List<FabricInfo> infos = shmInfos(0);
        assertFalse(infos.isEmpty(), "libfabric:shm is installed here");
        for (FabricInfo i : infos) {
            assertEquals(1, i.domainAttr.mrIovLimit, i.providerName() + "'s mr_iov_limit");
        }
        assertFalse(shmInfos(1).isEmpty(), "hints asking one buffer per region still match shm");
        assertTrue(shmInfos(2).isEmpty(), "hints asking two buffers per region match no shm info");
        // the other native providers keep what libfabric says (tcp;ofi_rxm: 1, as native)
        FabricInfo rxm = provider.getInfo(Fabrics.API_VERSION, null, null, 0,
                Hints.create().provider("libfabric:tcp;ofi_rxm").build()).getFirst();
        assertTrue(rxm.domainAttr.mrIovLimit >= 1, "tcp;ofi_rxm's mr_iov_limit: " + rxm.domainAttr.mrIovLimit);
    }

    @Test
    void aRegionOfTwoBuffersIsRefusedWithTheReasonAndOneBufferRegisters() {
        FabricInfo info = shmInfos(0).getFirst();
        try (Arena arena = Arena.ofConfined();
             Fabric f = provider.openFabric(info);
             Domain d = f.openDomain(info)) {
            MemorySegment one = arena.allocate(12 << 10, 64);
            MemorySegment two = arena.allocate(20 << 10, 64);
            long access = Access.REMOTE_READ | Access.REMOTE_WRITE;
            FabricException e = assertThrows(FabricException.class,
                    () -> d.registerMemory(new MrAttr(access, 0, one, two), 0));
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            assertTrue(e.getMessage().contains("mr_iov_limit"), e.getMessage());
            try (MemoryRegion mr = d.registerMemory(new MrAttr(access, 0, one), 0)) {
                assertEquals(one.byteSize(), mr.length(), "the one-buffer region");
            }
        }
    }
}
