package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * libfabric 1.17's tcp, rxm and rxd offer mr_iov_limit 1 yet accept fi_mr_regv of more buffers, and then serve only
 * the first: an RMA into the others completes at the initiator and never lands, or never completes
 * (src/test/c/regv_two_segments.c with OVER=1). The bridge refuses a region of more buffers than the domain's
 * mr_iov_limit with FI_EINVAL and a reason, so that nothing written to such a region is lost unseen.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegionSegmentLimitTest {
    @ParameterizedTest
    @ValueSource(strings = {"libfabric:tcp;ofi_rxm", "libfabric:udp;ofi_rxd", "libfabric:tcp"})
    void aRegionOfMoreBuffersThanMrIovLimitIsRefusedAndOneRegisters(String prov) {
        List<FabricInfo> infos = new LibfabricProvider().getInfo(Fabrics.API_VERSION, null, null, 0,
                Hints.create().provider(prov).build());
        assertFalse(infos.isEmpty(), prov + " is installed here");
        FabricInfo info = infos.getFirst();
        long limit = info.domainAttr.mrIovLimit;
        assertTrue(limit >= 1, prov + "'s mr_iov_limit " + limit);
        try (Arena arena = Arena.ofConfined();
             Fabric f = new LibfabricProvider().openFabric(info);
             Domain d = f.openDomain(info)) {
            MemorySegment[] iov = new MemorySegment[(int) limit + 1];
            for (int i = 0; i < iov.length; i++) {
                iov[i] = arena.allocate(4096, 64);
            }
            FabricException e = assertThrows(FabricException.class,
                    () -> d.registerMemory(iov, iov.length, Access.REMOTE_WRITE, 0, 0x5E6D0, 0));
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            assertTrue(e.getMessage().contains("mr_iov_limit"), e.getMessage());
            try (MemoryRegion mr = d.registerMemory(iov, (int) limit, Access.REMOTE_WRITE, 0, 0x5E6D1, 0)) {
                assertEquals(4096L * limit, mr.length(), "a region of mr_iov_limit buffers");
            }
        }
    }
}
