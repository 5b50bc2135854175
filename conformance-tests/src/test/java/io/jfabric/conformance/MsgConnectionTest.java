package io.jfabric.conformance;

import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.PassiveEndpoint;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** fi_cm(3) on FI_EP_MSG: connect, accept and reject carrying CM data, shutdown, getname/getpeer. */
@Timeout(60)
class MsgConnectionTest {
    private static final long T = EndpointPair.CONNECT_TIMEOUT_MS;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void connectAndAcceptCarryCmDataBothWays(FabricCase c) {
        Gate.msgEndpoint(c);
        EndpointPair.Options o = new EndpointPair.Options();
        o.connectData = EndpointPair.bytes("hello from the active side");
        o.acceptData = EndpointPair.bytes("welcome, from the passive side");
        EndpointPair p = EndpointPair.open(c, dump, o); // asserts the data and both CONNECTED events
        assertArrayEquals(p.a.ep.getName(), p.b.ep.getPeer(), "the server's peer is the client's name");
        assertArrayEquals(p.b.ep.getName(), p.a.ep.getPeer(), "the client's peer is the server's name");
    }

    @ForEachFabric
    void largestCmDataIsCarried(FabricCase c) {
        Gate.msgEndpoint(c);
        long size = cmDataSize(c);
        Gate.require(size > 0, c, "offers no CM data (FI_OPT_CM_DATA_SIZE is 0)");
        byte[] data = new byte[(int) Math.min(size, 256)];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7 + 1);
        }
        EndpointPair.Options o = new EndpointPair.Options();
        o.connectData = data;
        o.acceptData = Arrays.copyOf(data, data.length / 2);
        EndpointPair.open(c, dump, o);
    }

    @ForEachFabric
    void rejectDeliversEconnrefusedAndTheRejectData(FabricCase c) {
        Gate.msgEndpoint(c);
        dump.caseUnderTest(c);
        Poller poller = new Poller();
        FabricInfo info = c.freshInfo();
        Fabric fabric = dump.track(Fabrics.openFabric(info));
        EventQueue peq = dump.track(fabric.openEq(EqAttr.defaults()));
        PassiveEndpoint pep = dump.track(fabric.openPassiveEndpoint(info));
        pep.bind(peq);
        pep.listen();
        poller.add(peq);

        EventQueue ceq = dump.track(fabric.openEq(EqAttr.defaults()));
        poller.add(ceq);
        Domain domain = dump.track(fabric.openDomain(info));
        CompletionQueue cq = dump.track(domain.openCq(CqAttr.of(CqFormat.CONTEXT, 64)));
        Endpoint ep = dump.track(domain.openEndpoint(info));
        ep.bind(ceq);
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        ep.enable();
        ep.connect(pep.getName(), EndpointPair.bytes("may I?"));

        EqEntry req = poller.expectEvent(peq, EqEvent.CONNREQ, T, "waiting for CONNREQ");
        assertNotNull(req.info, "a CONNREQ carries the peer's info");
        assertNotNull(req.info.handle, "a CONNREQ's info carries the request handle");
        assertArrayEquals(EndpointPair.bytes("may I?"), req.cmData);
        byte[] why = EndpointPair.bytes("no, sorry");
        pep.reject(req.info.handle, why);

        EqEntry ev = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        int rc = poller.awaitEvent(ceq, ev, err, T);
        if (rc != -Errno.EAVAIL) {
            fail("a rejected connect must surface as an EQ error, got " + (rc < 0 ? Errno.name(rc) : ev));
        }
        assertEquals(Errno.ECONNREFUSED, err.err, "err of a rejected connect: " + err);
        assertSame(ep, err.fid, "the error names the connecting endpoint");
        assertArrayEquals(why, err.errData, "the reject data reaches the active side");
    }

    @ForEachFabric
    void shutdownRaisesShutdownOnThePeer(FabricCase c) {
        Gate.msgEndpoint(c);
        EndpointPair p = EndpointPair.open(c, dump);
        p.a.ep.shutdown(0);
        EqEntry e = p.poller.expectEvent(p.b.eq, EqEvent.SHUTDOWN, T, "server after the client's fi_shutdown");
        assertSame(p.b.ep, e.fid, "SHUTDOWN names the server's endpoint");
    }

    @ForEachFabric
    void closingOneEndRaisesShutdownOnTheOther(FabricCase c) {
        Gate.msgEndpoint(c);
        EndpointPair p = EndpointPair.open(c, dump);
        dump.close(p.b.ep);
        EqEntry e = p.poller.expectEvent(p.a.eq, EqEvent.SHUTDOWN, T, "client after the server closed its endpoint");
        assertSame(p.a.ep, e.fid);
    }

    @ForEachFabric
    void postedReceivesCompleteWithAnErrorAfterShutdown(FabricCase c) {
        Gate.msgEndpoint(c);
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            var buf = Mem.alloc(arena, 256);
            Object ctx = "recv-before-shutdown";
            p.poller.post("fi_recv", () -> p.a.ep.recv(buf, p.a.desc(buf), Fabrics.ADDR_UNSPEC, ctx));
            p.b.ep.shutdown(0);
            p.poller.expectEvent(p.a.eq, EqEvent.SHUTDOWN, T, "client after the server's fi_shutdown");
            dump.close(p.a.ep);
            // closing the endpoint flushes the posted receive as an error (fi_endpoint(3): ops are canceled)
            var err = new io.jfabric.CqErrEntry();
            int rc = p.poller.awaitCq(p.a.rxCq, new io.jfabric.CqEntry(), err, T);
            if (rc == 1) {
                fail("a receive posted before shutdown completed successfully with nothing sent");
            }
            if (rc == Poller.TIMED_OUT) {
                fail("a receive posted before shutdown never completed after the endpoint closed");
            }
            assertSame(ctx, err.context);
            assertTrue(err.err != 0, "error completion carries an errno");
        }
    }

    private long cmDataSize(FabricCase c) {
        FabricInfo info = c.freshInfo();
        Fabric fabric = dump.track(Fabrics.openFabric(info));
        PassiveEndpoint pep = dump.track(fabric.openPassiveEndpoint(info));
        long size = pep.cmDataSize();
        dump.close(pep);
        dump.close(fabric);
        assertTrue(size >= 0);
        return size;
    }
}
