package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * fabtests dom_test: several domains open at once on one fabric, each with its own queues (and AV) and an
 * enabled endpoint; on connectionless cases every domain's endpoint exchanges a message with the first's.
 */
@Timeout(60)
class DomainTest {
    static final int DOMAINS = 6;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void severalDomainsOnOneFabricOpenSideBySide(FabricCase c) {
        openDomains(c, new Poller());
    }

    @ForEachFabric
    void endpointsInSeveralDomainsExchangeMessages(FabricCase c) {
        Gate.connectionless(c);
        Gate.messaging(c);
        Poller poller = new Poller();
        Side[] sides = openDomains(c, poller);
        exchange(sides, poller);
    }

    /** dom_test proper: DOMAINS domains of one fabric, each with its CQs (and AV and enabled endpoint when connectionless). */
    private Side[] openDomains(FabricCase c, Poller poller) {
        dump.caseUnderTest(c);
        FabricInfo info = c.freshInfo();
        Fabric fabric = dump.track(Fabrics.openFabric(info));
        Side[] sides = new Side[DOMAINS];
        for (int i = 0; i < DOMAINS; i++) {
            Side s = new Side("d" + i, c, dump);
            s.info = c.freshInfo();
            s.fabric = fabric;
            s.domain = dump.track(fabric.openDomain(s.info));
            if (c.isMsg()) {
                // a MSG endpoint enables only with a connection; the domain and its queues are what dom_test opens
                s.txCq = dump.track(s.domain.openCq(io.jfabric.CqAttr.of(io.jfabric.CqFormat.CONTEXT, 64)));
                s.rxCq = dump.track(s.domain.openCq(io.jfabric.CqAttr.of(io.jfabric.CqFormat.CONTEXT, 64)));
            } else {
                EndpointPair.openQueuesAndEndpoint(s, c, dump, new EndpointPair.Options(), s.info, poller);
            }
            sides[i] = s;
        }
        for (Side s : sides) {
            assertEquals(-io.jfabric.Errno.EAGAIN, s.rxCq.read(new CqEntry()), s.name + ": an idle domain's CQ is empty");
        }
        return sides;
    }

    private static void exchange(Side[] sides, Poller poller) {
        Side hub = sides[0];
        try (Arena arena = Arena.ofShared()) {
            for (int i = 1; i < DOMAINS; i++) {
                Side s = sides[i];
                s.peer = s.av.insert(hub.ep.getName());
                long back = hub.av.insert(s.ep.getName());
                MemorySegment tx = Mem.alloc(arena, 128);
                MemorySegment rx = Mem.alloc(arena, 128);
                MemorySegment tx2 = Mem.alloc(arena, 128);
                MemorySegment rx2 = Mem.alloc(arena, 128);
                Mem.fill(tx, i);
                Mem.fill(tx2, 100 + i);
                p(poller, "hub recv", () -> hub.ep.recv(rx, hub.desc(rx), Fabrics.ADDR_UNSPEC, "hub-rx"));
                p(poller, s.name + " recv", () -> s.ep.recv(rx2, s.desc(rx2), Fabrics.ADDR_UNSPEC, "rx"));
                p(poller, s.name + " send", () -> s.ep.send(tx, s.desc(tx), s.peer, "tx"));
                poller.expectSuccess(hub.rxCq, new CqEntry(), 10_000, "hub receives from " + s.name);
                assertEquals(-1, Mem.mismatch(rx, i), "payload from " + s.name);
                p(poller, "hub send", () -> hub.ep.send(tx2, hub.desc(tx2), back, "hub-tx"));
                poller.expectSuccess(s.rxCq, new CqEntry(), 10_000, s.name + " receives from the hub");
                assertEquals(-1, Mem.mismatch(rx2, 100 + i), "payload to " + s.name);
                poller.expectSuccess(s.txCq, new CqEntry(), 10_000, s.name + " send");
                poller.expectSuccess(hub.txCq, new CqEntry(), 10_000, "hub send");
            }
        }
    }

    private static void p(Poller poller, String what, java.util.function.IntSupplier op) {
        poller.post(what, op);
    }
}
