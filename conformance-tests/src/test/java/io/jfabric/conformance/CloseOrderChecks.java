package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.PassiveEndpoint;

import java.lang.foreign.Arena;

/**
 * Closing parents before their children: each refusal is EBUSY and changes nothing, so the right order
 * still works afterwards. Run through {@link IsolatedCheck} in a child JVM.
 */
final class CloseOrderChecks {
    private CloseOrderChecks() {
    }

    static void closeOrder(FabricCase c, StateDump dump) {
        parentsWithChildren(c, dump);
        domainWithMemoryRegistration(c, dump);
        passiveEndpoint(c, dump);
    }

    static void parentsWithChildren(FabricCase c, StateDump dump) {
        FabricInfo info = c.freshInfo();
        Fabric fabric = dump.track(Fabrics.openFabric(info));
        Domain domain = dump.track(fabric.openDomain(info));
        CompletionQueue cq = dump.track(domain.openCq(CqAttr.of(CqFormat.CONTEXT, 64)));
        AddressVector av = c.isConnectionless() ? dump.track(domain.openAv(AvAttr.of(OpenCloseTest.avType(info)))) : null;
        EventQueue eq = c.isMsg() ? dump.track(fabric.openEq(EqAttr.defaults())) : null;
        Endpoint ep = dump.track(domain.openEndpoint(info));
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        if (av != null) {
            ep.bind(av);
        }
        if (eq != null) {
            ep.bind(eq);
        }
        ep.enable();

        OpenCloseTest.expectBusy(fabric, "fabric with an open domain");
        OpenCloseTest.expectBusy(domain, "domain with an open endpoint, CQ and AV");
        OpenCloseTest.expectBusy(cq, "CQ bound to an open endpoint");
        if (av != null) {
            OpenCloseTest.expectBusy(av, "AV bound to an open endpoint");
        }
        if (eq != null) {
            OpenCloseTest.expectBusy(eq, "EQ bound to an open endpoint");
        }

        // the refused closes changed nothing: the right order still works
        dump.close(ep);
        if (eq != null) {
            dump.close(eq);
        }
        if (av != null) {
            dump.close(av);
        }
        dump.close(cq);
        dump.close(domain);
        dump.close(fabric);
    }

    static void domainWithMemoryRegistration(FabricCase c, StateDump dump) {
        FabricInfo info = c.freshInfo();
        try (Arena arena = Arena.ofConfined()) {
            Fabric fabric = dump.track(Fabrics.openFabric(info));
            Domain domain = dump.track(fabric.openDomain(info));
            MemoryRegion mr = dump.track(domain.registerMemory(Mem.alloc(arena, 8192),
                    Access.REMOTE_READ | Access.REMOTE_WRITE | Access.SEND | Access.RECV, 7));
            OpenCloseTest.expectBusy(domain, "domain with an open memory registration");
            dump.close(mr);
            dump.close(domain);
            dump.close(fabric);
        }
    }

    static void passiveEndpoint(FabricCase c, StateDump dump) {
        if (!c.isMsg()) {
            return;
        }
        FabricInfo info = c.freshInfo();
        Fabric fabric = dump.track(Fabrics.openFabric(info));
        EventQueue eq = dump.track(fabric.openEq(EqAttr.defaults()));
        PassiveEndpoint pep = dump.track(fabric.openPassiveEndpoint(info));
        pep.bind(eq);
        pep.listen();
        byte[] name = pep.getName();
        org.junit.jupiter.api.Assertions.assertTrue(name != null && name.length > 0, "a listening pep has a name");
        OpenCloseTest.expectBusy(fabric, "fabric with an open passive endpoint");
        dump.close(pep);
        dump.close(eq);
        dump.close(fabric);
    }

}
