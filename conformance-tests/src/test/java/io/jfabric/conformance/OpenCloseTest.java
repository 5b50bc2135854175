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

    @ForEachFabric
    void parentsWithChildrenRefuseToCloseWithEbusy(FabricCase c) {
        dump.caseUnderTest(c);
        FabricInfo info = c.freshInfo();
        Fabric fabric = dump.track(Fabrics.openFabric(info));
        Domain domain = dump.track(fabric.openDomain(info));
        CompletionQueue cq = dump.track(domain.openCq(CqAttr.of(CqFormat.CONTEXT, 64)));
        AddressVector av = c.isConnectionless() ? dump.track(domain.openAv(AvAttr.of(avType(info)))) : null;
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

        expectBusy(fabric, "fabric with an open domain");
        expectBusy(domain, "domain with an open endpoint, CQ and AV");
        expectBusy(cq, "CQ bound to an open endpoint");
        if (av != null) {
            expectBusy(av, "AV bound to an open endpoint");
        }
        if (eq != null) {
            expectBusy(eq, "EQ bound to an open endpoint");
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

    @ForEachFabric
    void domainWithMemoryRegistrationRefusesToClose(FabricCase c) {
        dump.caseUnderTest(c);
        FabricInfo info = c.freshInfo();
        try (Arena arena = Arena.ofConfined()) {
            Fabric fabric = dump.track(Fabrics.openFabric(info));
            Domain domain = dump.track(fabric.openDomain(info));
            MemoryRegion mr = dump.track(domain.registerMemory(Mem.alloc(arena, 8192),
                    Access.REMOTE_READ | Access.REMOTE_WRITE | Access.SEND | Access.RECV, 7));
            expectBusy(domain, "domain with an open memory registration");
            dump.close(mr);
            dump.close(domain);
            dump.close(fabric);
        }
    }

    @ForEachFabric
    void passiveEndpointOpensListensAndCloses(FabricCase c) {
        Gate.msgEndpoint(c);
        dump.caseUnderTest(c);
        FabricInfo info = c.freshInfo();
        Fabric fabric = dump.track(Fabrics.openFabric(info));
        EventQueue eq = dump.track(fabric.openEq(EqAttr.defaults()));
        PassiveEndpoint pep = dump.track(fabric.openPassiveEndpoint(info));
        pep.bind(eq);
        pep.listen();
        byte[] name = pep.getName();
        org.junit.jupiter.api.Assertions.assertTrue(name != null && name.length > 0, "a listening pep has a name");
        expectBusy(fabric, "fabric with an open passive endpoint");
        dump.close(pep);
        dump.close(eq);
        dump.close(fabric);
    }

    private static AvType avType(FabricInfo info) {
        return info.domainAttr.avType == AvType.UNSPEC ? AvType.MAP : info.domainAttr.avType;
    }

    private static void expectBusy(FabricObject o, String what) {
        FabricException e = assertThrows(FabricException.class, o::close, "closing a " + what);
        assertEquals(Errno.EBUSY, e.errno(), "closing a " + what + ": " + e.getMessage());
    }
}
