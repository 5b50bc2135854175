package io.jfabric.provider.rxm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.provider.rxm.ProtocolSelector.*;
import static org.junit.jupiter.api.Assertions.*;

@Timeout(10)
class ProtocolSelectorTest {
    private static ProtocolSelector of(RxmParams p, boolean dyn) {
        return new ProtocolSelector(p.bufferSize(), p.eagerLimit(dyn), p.sarLimit(dyn), dyn, p.useRndvWrite(), 4);
    }

    @Test
    void withoutDynRbufEagerThenSarThenReadRendezvous() {
        ProtocolSelector s = of(RxmParams.defaults(), false);
        assertEquals(16384, s.eagerLimit());
        assertEquals(131072, s.sarLimit(), "SAR limit defaults to 8 x eager");
        assertEquals(EAGER, s.select(true, 0, 1));
        assertEquals(EAGER, s.select(true, 16384, 1));
        assertEquals(SAR, s.select(true, 16385, 1));
        assertEquals(SAR, s.select(false, 131072, 2));
        assertEquals(RNDV_READ, s.select(false, 131073, 1));
        assertEquals(RNDV_READ, s.select(true, 64L << 20, 1));
        assertEquals(8, s.segments(131072));
        assertEquals(2, s.segments(16385));
    }

    @Test
    void dynRbufSendsSmallTaggedHeaderlessAndTurnsSarOff() {
        ProtocolSelector s = of(RxmParams.defaults(), true);
        assertEquals(RAW_TAGGED, s.select(true, 64, 1));
        assertEquals(EAGER, s.select(false, 64, 1), "untagged keeps rxm's header");
        assertEquals(EAGER, s.select(true, 64, 5), "more iovs than the core takes go through a bounce buffer");
        assertEquals(16384, s.sarLimit(), "libfabric forces sar_limit = eager_limit with dyn_rbuf");
        assertEquals(RNDV_READ, s.select(true, 16385, 1), "capture C: 64 KiB goes by rendezvous");
    }

    @Test
    void writeVariantIsAParameter() {
        ProtocolSelector s = of(RxmParams.defaults().withRndvWrite(true), false);
        assertEquals(RNDV_WRITE, s.select(false, 1 << 20, 1));
    }

    @Test
    void eagerLimitParameterOnlyCountsWithDynRbufAndNeverDropsBelowBuffer() {
        RxmParams p = new RxmParams(8192, 32768, -1, 2048, 2048, 128, 128, 10000, 128, 1, false, true, true,
                false, 1024);
        assertEquals(32768, p.eagerLimit(true));
        assertEquals(8192, p.eagerLimit(false));
        assertEquals(65536, p.sarLimit(false));
        RxmParams small = new RxmParams(16384, 100, 50000, 2048, 2048, 128, 128, 10000, 128, 1, false, true, true,
                false, 1024);
        assertEquals(16384, small.eagerLimit(true));
        assertEquals(50000, small.sarLimit(false));
        RxmParams tooSmallSar = new RxmParams(16384, 100, 1000, 2048, 2048, 128, 128, 10000, 128, 1, false, true,
                true, false, 1024);
        assertEquals(16384, tooSmallSar.sarLimit(false), "a SAR limit below eager turns SAR off");
        RxmParams big = new RxmParams(70000, 0, -1, 2048, 2048, 128, 128, 10000, 128, 1, false, false, true,
                false, 1024);
        assertEquals(70000, big.sarLimit(false), "segments are u16-sized, so SAR is off above 64 KiB");
    }

    @Test
    void parametersUseLibfabricNames() {
        assertEquals("FI_OFI_RXM_BUFFER_SIZE", RxmParams.BUFFER_SIZE.envName());
        assertEquals("FI_OFI_RXM_SAR_LIMIT", RxmParams.SAR_LIMIT.envName());
        assertEquals("FI_OFI_RXM_ENABLE_DYN_RBUF", RxmParams.ENABLE_DYN_RBUF.envName());
        assertEquals("FI_OFI_RXM_USE_RNDV_WRITE", RxmParams.USE_RNDV_WRITE.envName());
        assertEquals("16384", RxmParams.BUFFER_SIZE.defaultValue());
    }

    @Test
    void systemPropertyOverridesDefault() {
        System.setProperty("jfabric.ofi_rxm.use_rndv_write", "1");
        System.setProperty("jfabric.ofi_rxm.sar_limit", "65536");
        try {
            RxmParams p = RxmParams.fromEnvironment();
            assertTrue(p.useRndvWrite());
            assertEquals(65536, p.sarLimit(false));
        } finally {
            System.clearProperty("jfabric.ofi_rxm.use_rndv_write");
            System.clearProperty("jfabric.ofi_rxm.sar_limit");
        }
        System.setProperty("jfabric.ofi_rxm.buffer_size", "lots");
        try {
            var e = assertThrows(io.jfabric.FabricException.class, RxmParams::fromEnvironment);
            assertTrue(e.getMessage().contains("FI_OFI_RXM_BUFFER_SIZE"));
        } finally {
            System.clearProperty("jfabric.ofi_rxm.buffer_size");
        }
    }
}
