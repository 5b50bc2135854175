package io.jfabric.util;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class UtilDomainTest {

    /** The least a provider's domain adds: an MR map made by the base, and a count of closes. */
    private static final class TestDomain extends UtilDomain<Fabric> {
        final MrMap mrs = newMrMap(8);
        int closes;
        /** Set: doClose fails as a layered domain's does while its core still has regions. */
        boolean coreBusy;

        TestDomain(FabricInfo info) {
            super("test domain", null, info);
        }

        @Override
        public Endpoint openEndpoint(FabricInfo info, Object context) {
            checkOpen("open an endpoint on");
            throw new FabricException(Errno.ENOSYS, "no endpoints in this test");
        }

        @Override
        public AddressVector openAv(AvAttr attr) {
            return refuseAv();
        }

        @Override
        public CompletionQueue openCq(CqAttr attr) {
            throw new FabricException(Errno.ENOSYS, "no CQs in this test");
        }

        @Override
        public Counter openCounter(CounterAttr attr) {
            throw new FabricException(Errno.ENOSYS, "no counters in this test");
        }

        @Override
        public MemoryRegion registerMemory(MemorySegment segment, long access, long offset, long requestedKey,
                                           long flags) {
            return mrs.register(segment, access, offset, requestedKey, null);
        }

        @Override
        protected void doClose() {
            if (coreBusy) {
                throw new FabricException(Errno.EBUSY, "the core domain still has regions");
            }
            closes++;
        }
    }

    private static FabricInfo info() {
        FabricInfo info = FabricInfo.hints();
        info.fabricAttr.provName = "tcp";
        info.domainAttr.mrMode = MrMode.PROV_KEY;
        return info;
    }

    @Test
    void anOpenRegionOrChildKeepsTheDomainOpen() {
        TestDomain d = new TestDomain(info());
        MemoryRegion mr = d.registerMemory(MemorySegment.ofArray(new byte[64]), Access.ALL, 0, 0, 0);
        assertEquals(1, mr.key(), "the map has the domain's mr_mode: FI_MR_PROV_KEY hands out keys from 1");
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, d::close).errno());
        mr.close();
        d.acquire();
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, d::close).errno());
        d.release();
        d.close();
        d.close();
        assertEquals(1, d.closes, "close is idempotent");
        assertEquals(Errno.EBADF, assertThrows(FabricException.class, () -> d.openEndpoint(info())).errno());
        assertEquals(Errno.EBADF, assertThrows(FabricException.class,
                () -> d.registerMemory(MemorySegment.ofArray(new byte[8]), Access.ALL, 0, 0, 0)).errno(),
                "a region of a closed domain is refused, not left holding nothing");
    }

    @Test
    void aCloseThatFailsLeavesTheDomainOpen() {
        TestDomain d = new TestDomain(info());
        d.coreBusy = true;
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, d::close).errno());
        assertFalse(d.isClosed());
        d.acquire();
        d.release();
        d.coreBusy = false;
        d.close();
        assertTrue(d.isClosed());
        assertEquals(1, d.closes, "the retried close released the domain");
    }

    @Test
    void theDomainKeepsItsOwnCopyOfTheInfo() {
        FabricInfo info = info();
        TestDomain d = new TestDomain(info);
        info.domainAttr.mrMode = 0;
        assertEquals(MrMode.PROV_KEY, d.info().domainAttr.mrMode);
        assertNotSame(info, d.info());
    }

    @Test
    void endpointTypeAndAvRefusals() {
        FabricInfo rdm = info();
        rdm.epAttr.type = EndpointType.RDM;
        FabricException e = assertThrows(FabricException.class,
                () -> UtilDomain.requireEndpointType(rdm, EndpointType.MSG, "tcp offers FI_EP_MSG only"));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("FI_EP_RDM"), e.getMessage());
        rdm.epAttr.type = EndpointType.UNSPEC;
        UtilDomain.requireEndpointType(rdm, EndpointType.MSG, "unused");
        UtilDomain.requireEndpointType(null, EndpointType.MSG, "unused");

        FabricException av = assertThrows(FabricException.class, () -> new TestDomain(info()).openAv(null));
        assertEquals(Errno.ENOSYS, av.errno());
        assertTrue(av.getMessage().contains("tcp;ofi_rxm"), av.getMessage());
    }
}
