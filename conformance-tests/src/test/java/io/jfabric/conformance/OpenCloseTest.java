package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.FabricObject;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.PassiveEndpoint;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** fi_close: every object opens and closes, and a parent with open children refuses with EBUSY. */
@Timeout(30)
class OpenCloseTest {
    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void openAndCloseEveryObjectInOrder(FabricCase c) {
        dump.caseUnderTest(c);
        FabricInfo info = c.freshInfo();
        try (Arena arena = Arena.ofConfined()) {
            Fabric fabric = dump.track(Fabrics.openFabric(info));
            EventQueue eq = dump.track(fabric.openEq(EqAttr.defaults()));
            Domain domain = dump.track(fabric.openDomain(info));
            CompletionQueue cq = dump.track(domain.openCq(CqAttr.of(CqFormat.CONTEXT, 64)));
            AddressVector av = c.isConnectionless() ? dump.track(domain.openAv(AvAttr.of(avType(info)))) : null;
            MemoryRegion mr = dump.track(domain.registerMemory(Mem.alloc(arena, 4096), Access.SEND | Access.RECV, 1)); 
            Endpoint ep = dump.track(domain.openEndpoint(info));
            if (c.isMsg()) {
                ep.bind(eq);
            } else {
                ep.bind(av);
            }
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
            ep.enable();
            for (FabricObject o : new FabricObject[] {ep, mr, av, cq, domain, eq, fabric}) {
                if (o != null) {
                    dump.close(o);
                }
            }
        }
    }

    /**
     * Out-of-order closes, run in a child JVM: a native provider that frees a parent before refusing can
     * abort the whole process, and the suite must report that as this case's failure, not die with it.
     */
    @ForEachFabric
    void parentsWithChildrenRefuseToCloseWithEbusy(FabricCase c) throws Exception {
        dump.caseUnderTest(c);
        IsolatedCheck.run(c, "closeOrder", dump);
    }

    static AvType avType(FabricInfo info) {
        return info.domainAttr.avType == AvType.UNSPEC ? AvType.MAP : info.domainAttr.avType;
    }

    static void expectBusy(FabricObject o, String what) {
        FabricException e = assertThrows(FabricException.class, o::close, "closing a " + what);
        assertEquals(Errno.EBUSY, e.errno(), "closing a " + what + ": " + e.getMessage());
    }
}
