package io.jfabric.conformance;

import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Two endpoints of one case in this process, each on its own fabric and domain, ready for data: connected
 * (MSG, through a passive endpoint) or with each other's address in their AV (RDM, DGRAM). {@code a} is
 * the active/initiating side, {@code b} the passive/target side.
 */
final class EndpointPair {
    static final long CONNECT_TIMEOUT_MS = 10_000;

    final Side a;
    final Side b;
    final Poller poller = new Poller();

    private EndpointPair(Side a, Side b) {
        this.a = a;
        this.b = b;
    }

    /** The provider refused the extra bind flags a test asked for (fi_ep_bind failed with them). */
    static final class BindRefused extends RuntimeException {
        BindRefused(String flags, FabricException cause) {
            super("fi_ep_bind with " + flags + " refused: " + cause.getMessage(), cause);
        }
    }

    /** Options of {@link #open}. */
    static final class Options {
        CqFormat format = CqFormat.TAGGED;
        long txBindFlags;
        Consumer<FabricInfo> alterInfo = i -> { };
        byte[] connectData;
        byte[] acceptData;
        /** Size of the transmit CQ; 0 takes the endpoint's tx_size (at least 64). */
        long txCqSize;
        /** Opens extra objects (counters) in the side's domain before its endpoint, so they close after it. */
        Consumer<Side> beforeEndpoint = s -> { };
        /** Extra bindings (counters) made before the endpoint is enabled. */
        Consumer<Side> beforeEnable = s -> { };
    }

    static EndpointPair open(FabricCase c, StateDump dump) {
        return open(c, dump, new Options());
    }

    static EndpointPair open(FabricCase c, StateDump dump, Options o) {
        dump.caseUnderTest(c);
        EndpointPair p = new EndpointPair(new Side("a", c, dump), new Side("b", c, dump));
        dump.reporter(p.a::toString);
        dump.reporter(p.b::toString);
        if (c.isMsg()) {
            p.connect(c, dump, o);
        } else {
            openSide(p.a, c, dump, o, c.freshInfo(), p.poller);
            openSide(p.b, c, dump, o, c.freshInfo(), p.poller);
            p.a.peer = p.a.av.insert(p.b.ep.getName());
            p.b.peer = p.b.av.insert(p.a.ep.getName());
        }
        return p;
    }

    /** Opens a whole side from {@code info}: fabric, EQ (MSG), domain, CQs, AV (connectionless), enabled endpoint. */
    static void openSide(Side s, FabricCase c, StateDump dump, Options o, FabricInfo info, Poller poller) {
        o.alterInfo.accept(info);
        s.info = info;
        s.fabric = dump.track(Fabrics.openFabric(info));
        if (c.isMsg()) {
            s.eq = dump.track(s.fabric.openEq(EqAttr.defaults()));
            poller.add(s.eq);
        }
        s.domain = dump.track(s.fabric.openDomain(info));
        openQueuesAndEndpoint(s, c, dump, o, info, poller);
    }

    /** Opens the CQs, the AV when connectionless, and the endpoint of {@code s} in its open domain, then enables it. */
    static void openQueuesAndEndpoint(Side s, FabricCase c, StateDump dump, Options o, FabricInfo info, Poller poller) {
        s.txCq = dump.track(s.domain.openCq(o.txCqSize > 0 ? CqAttr.of(o.format, o.txCqSize)
                : cqAttr(o, info.txAttr.size)));
        s.rxCq = dump.track(s.domain.openCq(cqAttr(o, info.rxAttr.size)));
        poller.add(s.txCq);
        poller.add(s.rxCq);
        if (c.isConnectionless()) {
            AvAttr attr = AvAttr.of(info.domainAttr.avType == AvType.UNSPEC ? AvType.MAP : info.domainAttr.avType);
            s.av = dump.track(s.domain.openAv(attr));
        }
        o.beforeEndpoint.accept(s);
        s.ep = dump.track(s.domain.openEndpoint(info));
        if (s.eq != null) {
            s.ep.bind(s.eq);
        }
        if (s.av != null) {
            s.ep.bind(s.av);
        }
        try {
            s.ep.bind(s.txCq, BindFlags.TRANSMIT | o.txBindFlags);
        } catch (FabricException e) {
            if (o.txBindFlags == 0) {
                throw e;
            }
            throw new BindRefused(BindFlags.toString(o.txBindFlags), e);
        }
        s.ep.bind(s.rxCq, BindFlags.RECV);
        o.beforeEnable.accept(s);
        s.ep.enable();
    }

    private static CqAttr cqAttr(Options o, long size) {
        return CqAttr.of(o.format, Math.max(64, Math.min(FabricCase.unsigned(size), 1 << 16)));
    }

    private void connect(FabricCase c, StateDump dump, Options o) {
        // b listens
        FabricInfo pepInfo = c.freshInfo();
        o.alterInfo.accept(pepInfo);
        b.fabric = dump.track(Fabrics.openFabric(pepInfo));
        b.eq = dump.track(b.fabric.openEq(EqAttr.defaults()));
        poller.add(b.eq);
        b.pep = dump.track(b.fabric.openPassiveEndpoint(pepInfo));
        b.pep.bind(b.eq);
        b.pep.listen();
        byte[] listenAddr = b.pep.getName();

        // a connects
        FabricInfo ai = c.freshInfo();
        ai.destAddr = listenAddr;
        openSide(a, c, dump, o, ai, poller);
        a.ep.connect(listenAddr, o.connectData);

        // b accepts
        EqEntry req = poller.expectEvent(b.eq, EqEvent.CONNREQ, CONNECT_TIMEOUT_MS, "server waiting for CONNREQ");
        if (o.connectData != null) {
            assertArrayEquals(o.connectData, req.cmData, "CM data of CONNREQ");
        }
        FabricInfo bi = req.info;
        o.alterInfo.accept(bi);
        b.info = bi;
        b.domain = dump.track(b.fabric.openDomain(bi));
        openQueuesAndEndpoint(b, c, dump, o, bi, poller);
        b.ep.accept(o.acceptData);

        EqEntry bc = poller.expectEvent(b.eq, EqEvent.CONNECTED, CONNECT_TIMEOUT_MS, "server waiting for CONNECTED");
        assertSame(b.ep, bc.fid, "CONNECTED on the server names the accepting endpoint");
        EqEntry ac = poller.expectEvent(a.eq, EqEvent.CONNECTED, CONNECT_TIMEOUT_MS, "client waiting for CONNECTED");
        assertSame(a.ep, ac.fid, "CONNECTED on the client names the connecting endpoint");
        if (o.acceptData != null) {
            assertArrayEquals(o.acceptData, ac.cmData, "CM data of CONNECTED");
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
